package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.AccountResolver;
import ai.cotal.core.config.BrokerPolicy;
import ai.cotal.core.config.Transport;
import ai.cotal.core.internal.json.ClosedJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The broker policy file {@code <root>/.cotal/broker-policy.json}:
 * {@code {"version": 1, "transport": {"kind": "plaintext"} | {"kind": "tls-required", "certFile",
 * "keyFile"}, "accountResolver"?: {"kind": "full", "limit", "intervalSeconds"}}}. Written
 * atomically at 0600. Reading fails closed: an unreadable or invalid file, or a TLS policy whose
 * certificate or key is missing, is refused; it never falls back to plaintext or to MEMORY.
 */
public final class BrokerPolicies {
    /** The policy file, relative to the root. */
    public static final String FILE = ".cotal/broker-policy.json";
    /** The full resolver's directory, relative to the root: every render names this one. */
    public static final String ACCOUNT_JWTS = ".cotal/account-jwts";

    private BrokerPolicies() {
    }

    private record Document(Integer version, TransportDocument transport, ResolverDocument accountResolver) {
    }

    private record TransportDocument(String kind, String certFile, String keyFile) {
    }

    private record ResolverDocument(String kind, Integer limit, Long intervalSeconds) {
    }

    /** Writes {@code policy} for the broker rooted at {@code root}. */
    public static void writeBrokerPolicy(Path root, BrokerPolicy policy) {
        TransportDocument transport = policy.transport() instanceof Transport.TlsRequired tls
                ? new TransportDocument("tls-required", tls.certFile().toString(), tls.keyFile().toString())
                : new TransportDocument("plaintext", null, null);
        ResolverDocument resolver = policy.accountResolver().map(full -> new ResolverDocument("full", full.limit(),
                full.interval().toSeconds())).orElse(null);
        Path file = root.resolve(FILE);
        PrivateFiles.ensureDirectory(root, file.getParent());
        PrivateFiles.write(file, ClosedJson.write(ClosedJson.cotal(), new Document(1, transport, resolver)));
    }

    /** The policy of the broker rooted at {@code root}; empty only when the file does not exist. */
    public static Optional<BrokerPolicy> readBrokerPolicy(Path root) {
        Path file = root.resolve(FILE);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw corrupt("unreadable (" + e.getClass().getSimpleName() + ")");
        }
        Document document;
        try {
            document = ClosedJson.read(ClosedJson.cotal(), bytes, Document.class, "broker-policy");
        } catch (CotalException e) {
            throw corrupt(e.getMessage());
        }
        if (document.version() == null || document.version() != 1) {
            throw corrupt("version must be 1");
        }
        return Optional.of(new BrokerPolicy(transport(document.transport()), resolver(document.accountResolver())));
    }

    /** The resolver every render of this broker uses: MEMORY, or full in {@code <root>/.cotal/account-jwts}. */
    public static AccountResolver brokerAccountResolver(Path root, BrokerPolicy policy) {
        return policy.accountResolver().<AccountResolver>map(full -> AccountResolver.full(root.resolve(ACCOUNT_JWTS),
                full.limit(), full.interval())).orElseGet(AccountResolver::memory);
    }

    private static Transport transport(TransportDocument document) {
        if (document == null || document.kind() == null) {
            throw corrupt("transport.kind is missing");
        }
        switch (document.kind()) {
            case "plaintext" -> {
                if (document.certFile() != null || document.keyFile() != null) {
                    throw corrupt("a plaintext transport has no certFile or keyFile");
                }
                return Transport.plaintext();
            }
            case "tls-required" -> {
                if (document.certFile() == null || document.keyFile() == null) {
                    throw corrupt("tls-required needs certFile and keyFile");
                }
                for (String path : new String[] {document.certFile(), document.keyFile()}) {
                    if (!Files.isRegularFile(Path.of(path))) {
                        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "broker-policy.json: " + path
                                + " does not exist; a tls-required broker cannot start without it");
                    }
                }
                return Transport.tlsRequired(Path.of(document.certFile()), Path.of(document.keyFile()));
            }
            default -> throw corrupt("transport.kind must be plaintext or tls-required");
        }
    }

    private static Optional<BrokerPolicy.FullResolver> resolver(ResolverDocument document) {
        if (document == null) {
            return Optional.empty();
        }
        if (!"full".equals(document.kind()) || document.limit() == null || document.intervalSeconds() == null) {
            throw corrupt("accountResolver needs kind 'full', limit and intervalSeconds");
        }
        try {
            return Optional.of(new BrokerPolicy.FullResolver(document.limit(), Duration.ofSeconds(document.intervalSeconds())));
        } catch (CotalException e) {
            throw corrupt(e.getMessage());
        }
    }

    private static CotalException corrupt(String problem) {
        return new CotalException(ErrorCode.DATA_LOSS, "broker-policy.json: " + problem + "; fix or remove the file"
                + " (the SDK never falls back to plaintext or MEMORY)");
    }
}
