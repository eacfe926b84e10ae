package ai.cotal.cli;

import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.auth.service.AuthHost;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerDescription;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.workspace.CotalRoot;
import ai.cotal.workspace.FileSecretStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cotal-auth serve}: the stock service of one space ({@code --space}) or a multi-space host
 * ({@code --spaces manifest.json}) from a provisioned root ({@code --root}, whose {@code .cotal/}
 * holds the file secret store), until {@code stop} completes (SIGINT or SIGTERM in the command).
 * A manifest is re-applied when its content changes ({@link ManifestWatch}); a malformed one is
 * refused and logged, and the lanes keep running. {@code --signer-socket} signs through a remote
 * signer ({@code cotal-auth signer}); the root then must not hold the space's seed.
 * {@code --metrics [HOST:]PORT} serves the meters of SPEC §13.21 for Prometheus
 * ({@link MetricsEndpoint}; the lanes of {@code --spaces} each carry their space tag).
 */
final class Serve {
    private static final String USAGE = "usage: cotal-auth serve (--space NAME [--service-endpoints] [--port N] [--public [HOST:]PORT]"
            + " [--oidc-issuer URL --oidc-client-id ID [--oidc-alg ALG ...]] [--grant-policy FILE] [--signer-socket PATH]"
            + " | --spaces MANIFEST)"
            + " --server URL [--server URL ...] --root DIR [--store-replicas 1|3|5] [--ledger files|store] [--metrics [HOST:]PORT]";

    private Serve() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err, CompletableFuture<Void> stop) {
        Map<String, List<String>> flags;
        try {
            flags = parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        boolean single = flags.containsKey("--space");
        boolean multi = flags.containsKey("--spaces");
        if (single == multi || !flags.containsKey("--server") || !flags.containsKey("--root")) {
            err.println(USAGE);
            return 2;
        }
        if (flags.containsKey("--port") && !flags.get("--port").get(0).matches("[0-9]{1,5}")) {
            err.println("--port must be a port number");
            return 2;
        }
        boolean oidc = flags.containsKey("--oidc-issuer");
        if (oidc != flags.containsKey("--oidc-client-id") || !oidc && flags.containsKey("--oidc-alg")) {
            err.println("--oidc-issuer and --oidc-client-id go together (--oidc-alg only with them)");
            return 2;
        }
        if (multi && oidc) {
            err.println("--oidc-issuer cannot go with --spaces: one provider pins one space");
            return 2;
        }
        for (String once : List.of("--public", "--port")) {
            if (flags.getOrDefault(once, List.of()).size() > 1) {
                err.println(once + " must be given once");
                return 2;
            }
        }
        if (multi && flags.containsKey("--public")) {
            err.println("--public cannot go with --spaces: a public face serves one space");
            return 2;
        }
        if (flags.containsKey("--public")) {
            try {
                Flags.address("--public", flags.get("--public").get(0));
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                return 2;
            }
        }
        if (multi && flags.containsKey("--grant-policy")) {
            err.println("--grant-policy cannot go with --spaces: give each space's grantPolicy in the manifest");
            return 2;
        }
        if (flags.getOrDefault("--grant-policy", List.of()).size() > 1) {
            err.println("--grant-policy must be given once");
            return 2;
        }
        if (multi && flags.containsKey("--signer-socket")) {
            err.println("--signer-socket cannot go with --spaces: one signer signs for one space; give each space's"
                    + " signerSocket in the manifest");
            return 2;
        }
        if (multi && flags.containsKey("--service-endpoints")) {
            err.println("--service-endpoints cannot go with --spaces: set \"serviceEndpoints\": true on the manifest entry");
            return 2;
        }
        StoreReplicas replicas;
        try {
            replicas = storeReplicas(flags);
            ledger(flags);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        java.net.InetSocketAddress metricsAddress;
        try {
            metricsAddress = MetricsEndpoint.address(flags);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        Path root = Path.of(flags.get("--root").get(0)).toAbsolutePath().normalize();
        FileSecretStore secrets = new FileSecretStore(root);
        MetricsEndpoint metrics = null;
        try {
            if (metricsAddress != null) {
                metrics = MetricsEndpoint.startOrReport(metricsAddress, "cotal-auth serve", out, err);
                if (metrics == null) {
                    return 1;
                }
            }
            return serve(flags, single, root, secrets, replicas, metrics, out, err, stop);
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
    }

    private static int serve(Map<String, List<String>> flags, boolean single, Path root, FileSecretStore secrets,
            StoreReplicas replicas, MetricsEndpoint metrics, PrintStream out, PrintStream err,
            CompletableFuture<Void> stop) {
        try {
            if (single) {
                String space = flags.get("--space").get(0);
                AuthServiceOptions faces = serviceOptions(flags); // its refusals name the flag before anything is read
                AuthPlaneOptions.Builder options = laneOptions(flags, root, secrets, replicas);
                if (metrics != null) {
                    options.meterSink(MicrometerSink.of(metrics.registry()));
                }
                UnixSocketAccountSigner remote = null;
                SpaceSigner remoteSigner = null;
                if (flags.containsKey("--signer-socket")) { // the seed stays with the signer (SPEC §16.4)
                    Path socket = Path.of(flags.get("--signer-socket").get(0));
                    SignerDescription signer = UnixSocketAccountSigner.describe(socket, UnixSocketAccountSigner.DEFAULT_TIMEOUT);
                    remote = UnixSocketAccountSigner.builder().socket(socket).publicKey(signer.signingKey()).build();
                    remoteSigner = new SpaceSigner(signer.space(), signer.accountPublicKey(), remote);
                }
                try {
                    ServiceMaterial.Loaded material = ServiceMaterial.forService(secrets, space, remoteSigner);
                    try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(options.signer(material.signer())
                            .callout(material.callout()).build());
                         AuthService service = AuthService.start(plane, faces)) {
                        out.println("cotal-auth: space " + space + " serving at " + service.loopbackUrl());
                        service.publicUrl().ifPresent(url -> out.println("cotal-auth: space " + space
                                + " public face at " + url));
                        service.unavailable().thenRun(() -> stop.complete(null));
                        stop.join();
                        return service.state() == AuthService.State.READY ? 0 : 1;
                    }
                } finally {
                    if (remote != null) {
                        remote.close();
                    }
                }
            }
            AuthHost.Options options = hostOptions(flags, root, secrets, replicas, metrics);
            Path manifest = options.manifest();
            try (AuthHost host = AuthHost.start(options)) {
                out.println("cotal-auth: serving " + host.lanes().keySet() + " from " + manifest);
                ManifestWatch.run(host::apply, host.appliedFile(), manifest, "cotal-auth serve", err, stop);
                return 0;
            }
        } catch (RuntimeException e) {
            err.println("cotal-auth serve: " + e.getMessage());
            return 1;
        }
    }

    /**
     * {@code --store-replicas}: the authority stores' replica count the plane opens with (SPEC
     * §13.12; 1 unless given, 3 or 5 on a cluster of that many members or more).
     */
    static StoreReplicas storeReplicas(Map<String, List<String>> flags) {
        List<String> given = flags.getOrDefault("--store-replicas", List.of());
        if (given.isEmpty()) {
            return StoreReplicas.one();
        }
        if (given.size() > 1 || !List.of("1", "3", "5").contains(given.get(0))) {
            throw new IllegalArgumentException("--store-replicas must be given once: 1, 3 or 5");
        }
        return StoreReplicas.of(Integer.parseInt(given.get(0)));
    }

    /**
     * {@code --ledger}: where every lane's actor ledger and IdP pin live (SPEC §13.23; files unless
     * given).
     */
    static ai.cotal.auth.LedgerStore ledger(Map<String, List<String>> flags) {
        List<String> given = flags.getOrDefault("--ledger", List.of());
        if (given.isEmpty()) {
            return ai.cotal.auth.LedgerStore.files();
        }
        if (given.size() > 1 || !List.of("files", "store").contains(given.get(0))) {
            throw new IllegalArgumentException("--ledger must be given once: files or store");
        }
        return ai.cotal.auth.LedgerStore.parse(given.get(0));
    }

    /**
     * The one space's plane options ({@code --space}), with the root's secret store and state
     * directory; the signer and the callout account are added from the store's service material.
     */
    static AuthPlaneOptions.Builder laneOptions(Map<String, List<String>> flags, Path root, SecretStore secrets,
            StoreReplicas replicas) {
        String space = flags.get("--space").get(0);
        return AuthPlaneOptions.builder().servers(flags.get("--server")).space(space)
                .stateDir(CotalRoot.userAuthStateDir(root, space)).secretStore(secrets).storeReplicas(replicas)
                .ledger(ledger(flags)).serviceEndpoints(flags.containsKey("--service-endpoints") ? ServiceEndpoints.normal() : null);
    }

    /**
     * The one space's service options: {@code --port}, the OpenID Connect pin and the grant policy
     * of {@code --grant-policy FILE} (SPEC §13.18; a file that cannot be read is
     * {@code failed-precondition}, a bad policy {@code bad-request} naming {@code grantPolicy.<field>}).
     */
    static AuthServiceOptions serviceOptions(Map<String, List<String>> flags) {
        AuthServiceOptions.Builder options = AuthServiceOptions.builder();
        if (flags.containsKey("--port")) {
            options.loopbackPort(Integer.parseInt(flags.get("--port").get(0)));
        }
        if (flags.containsKey("--public")) { // the public face: exchange, join bundle (SPEC §13.17)
            options.publicAddress(Flags.address("--public", flags.get("--public").get(0)));
        }
        if (flags.containsKey("--oidc-issuer")) { // pinned at start (SPEC §13.18); a space pinned elsewhere refuses the start
            options.oidc(flags.get("--oidc-issuer").get(0), flags.get("--oidc-client-id").get(0),
                    flags.getOrDefault("--oidc-alg", List.of()));
        }
        if (flags.containsKey("--grant-policy")) {
            Path file = Path.of(flags.get("--grant-policy").get(0));
            String text;
            try {
                text = java.nio.file.Files.readString(file);
            } catch (java.io.IOException | RuntimeException e) {
                throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.FAILED_PRECONDITION,
                        "--grant-policy: cannot read the file (" + e.getClass().getSimpleName() + ")");
            }
            options.grantPolicy(ai.cotal.auth.GrantPolicy.parse(text, "grantPolicy"));
        }
        return options.build();
    }

    /** The multi-space host's options ({@code --spaces}): its lanes' state under {@code .cotal/auth-host}. */
    static AuthHost.Options hostOptions(Map<String, List<String>> flags, Path root, SecretStore secrets,
            StoreReplicas replicas) {
        return hostOptions(flags, root, secrets, replicas, null);
    }

    private static AuthHost.Options hostOptions(Map<String, List<String>> flags, Path root, SecretStore secrets,
            StoreReplicas replicas, MetricsEndpoint metrics) {
        AuthHost.Options.Builder options = AuthHost.Options.builder().servers(flags.get("--server"))
                .manifest(Path.of(flags.get("--spaces").get(0)).toAbsolutePath())
                .stateRoot(root.resolve(".cotal").resolve("auth-host")).secretStore(secrets).storeReplicas(replicas)
                .ledger(ledger(flags));
        if (metrics != null) {
            options.meterSink(MicrometerSink.of(metrics.registry()));
        }
        return options.build();
    }

    static Map<String, List<String>> parse(List<String> args) {
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            switch (flag) {
                case "--service-endpoints" -> flags.put(flag, List.of());
                case "--space", "--spaces", "--server", "--root", "--port", "--public", "--oidc-issuer", "--oidc-client-id",
                        "--oidc-alg", "--store-replicas", "--ledger", "--signer-socket", "--metrics", "--grant-policy" -> {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException(flag + " needs a value");
                    }
                    flags.computeIfAbsent(flag, k -> new ArrayList<>()).add(args.get(++i));
                }
                default -> throw new IllegalArgumentException("unknown argument " + flag);
            }
        }
        return flags;
    }
}
