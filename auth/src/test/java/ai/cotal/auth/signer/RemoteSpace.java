package ai.cotal.auth.signer;

import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerDescription;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerProfile;
import ai.cotal.signer.SignerServer;
import ai.cotal.signer.SignerServerOptions;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Space {@code alpha} split the way the remote signer wants it: the signer's store holds the
 * data account's seed ({@code service-keys.json}) and nothing else the service needs; the
 * service's store holds the callout material, the issuer key, the owner secret and the observer
 * credential, and no seed. The signer runs in-process on its own threads, over a real socket.
 */
final class RemoteSpace {
    final Clock clock = Clock.systemUTC();
    final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
    final InMemorySecretStore signerStore = new InMemorySecretStore();
    final InMemorySecretStore serviceStore = new InMemorySecretStore();
    final Path socket;
    final Path audit;

    RemoteSpace(Path dir) {
        socket = dir.resolve("signer").resolve("alpha.sock");
        audit = dir.resolve("audit.jsonl");
        SpaceProvisioning.forSpace(auth, callout).write(signerStore);
        SpaceProvisioning.forSpace(auth, callout).remoteSigner().write(serviceStore); // the seed lives only with the signer
    }

    String config(NatsBroker nats) {
        return ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(nats.storeDir()).extraAccounts(List.of(callout.jwt())).build());
    }

    /** Starts the signer with the seed from its own store. */
    SignerServer startSigner(SignerPolicy policy) {
        return SignerServer.start(SignerServerOptions.builder().signer(ServiceMaterial.loadSigner(signerStore, "alpha"))
                .socket(socket).audit(audit).policy(policy).build());
    }

    /** A policy file's bytes listing {@code profiles} with {@code seconds} each (scanners without expiry). */
    SignerPolicy policy(long seconds, SignerProfile... profiles) {
        return policy(seconds, null, profiles);
    }

    /** As {@link #policy(long, SignerProfile...)}, {@code callout-member} at {@code memberRate} per principal and minute. */
    SignerPolicy policy(long seconds, Integer memberRate, SignerProfile... profiles) {
        StringBuilder json = new StringBuilder("{\"ver\":1,\"space\":\"alpha\",\"account\":\"")
                .append(auth.account().accountPublicKey()).append("\",\"profiles\":{");
        for (int i = 0; i < profiles.length; i++) {
            boolean scanner = profiles[i] == SignerProfile.AUTH_SCAN || profiles[i] == SignerProfile.RECORDS_SCAN;
            String rate = memberRate != null && profiles[i] == SignerProfile.CALLOUT_MEMBER
                    ? ",\"perPrincipalPerMinute\":" + memberRate : "";
            json.append(i == 0 ? "" : ",").append('"').append(profiles[i].label()).append("\":{\"maxLifetimeSeconds\":")
                    .append(seconds).append(rate).append(scanner ? ",\"withoutExpiry\":true}" : "}");
        }
        return SignerPolicy.parse(json.append("}}").toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The plane's side: a {@code SpaceSigner} built from the signer's description, no key material. */
    SpaceSigner remote() {
        return remote(java.util.function.UnaryOperator.identity());
    }

    /** As {@link #remote()}, the client wrapped by {@code wrap} (an {@link Observed}). */
    SpaceSigner remote(java.util.function.UnaryOperator<AccountSigner> wrap) {
        SignerDescription d = UnixSocketAccountSigner.describe(socket, Duration.ofSeconds(2));
        UnixSocketAccountSigner client = UnixSocketAccountSigner.builder().socket(socket).publicKey(d.signingKey()).build();
        return new SpaceSigner(d.space(), d.accountPublicKey(), wrap.apply(client));
    }

    List<JsonNode> auditLines() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            lines.add(new ObjectMapper().readTree(line));
        }
        return lines;
    }

    /** An {@link AccountSigner} that records, per signature, the JWT's name and whether it was signed. */
    static final class Observed implements AccountSigner {
        record Call(String name, String outcome) {
        }

        final AccountSigner delegate;
        final Queue<Call> calls = new ConcurrentLinkedQueue<>();

        Observed(AccountSigner delegate) {
            this.delegate = delegate;
        }

        @Override
        public String publicKey() {
            return delegate.publicKey();
        }

        @Override
        public byte[] sign(byte[] input) {
            String name = NatsJwt.decodeSigningInput(new String(input, StandardCharsets.US_ASCII)).name();
            try {
                byte[] signature = delegate.sign(input);
                calls.add(new Call(name, "signed"));
                return signature;
            } catch (ai.cotal.core.CotalException e) {
                calls.add(new Call(name, e.code().wire()));
                throw e;
            }
        }

        boolean saw(String namePrefix, String outcome) {
            return calls.stream().anyMatch(c -> c.name() != null && c.name().startsWith(namePrefix)
                    && c.outcome().equals(outcome));
        }
    }
}
