package ai.cotal.cli;

import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.auth.service.CalloutHost;
import ai.cotal.workspace.FileSecretStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cotal-auth callout-host}: callout replicas for the spaces of a manifest ({@code --spaces},
 * the auth host's format) from a provisioned root ({@code --root}: the file secret store in
 * {@code .cotal/}, each space's ledger under {@code .cotal/auth-host/}, where {@code serve --spaces}
 * keeps it), until {@code stop} completes. The manifest is re-applied when its content changes
 * ({@link ManifestWatch}); each apply is reported on {@code out}, each refused space on {@code err}.
 * {@code --metrics [HOST:]PORT} serves the replica lanes' callout meters (SPEC §13.21, each tagged
 * with its space) for Prometheus, as {@code serve --metrics} does.
 */
final class CalloutHostCommand {
    private static final String NAME = "cotal-auth callout-host";
    private static final String USAGE = "usage: cotal-auth callout-host --spaces MANIFEST --server URL [--server URL ...]"
            + " --root DIR [--metrics [HOST:]PORT]";

    private CalloutHostCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err, CompletableFuture<Void> stop) {
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            String wrong = !List.of("--spaces", "--server", "--root", "--metrics").contains(flag) ? "unknown argument " + flag
                    : i + 1 >= args.size() ? flag + " needs a value" : null;
            if (wrong != null) {
                err.println(wrong);
                err.println(USAGE);
                return 2;
            }
            flags.computeIfAbsent(flag, k -> new ArrayList<>()).add(args.get(++i));
        }
        if (flags.getOrDefault("--spaces", List.of()).size() != 1 || !flags.containsKey("--server")
                || flags.getOrDefault("--root", List.of()).size() != 1
                || flags.getOrDefault("--metrics", List.of()).size() > 1) {
            err.println(USAGE);
            return 2;
        }
        java.net.InetSocketAddress metricsAddress;
        try {
            metricsAddress = MetricsEndpoint.address(flags);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        MetricsEndpoint metrics = null;
        try {
            if (metricsAddress != null) {
                metrics = MetricsEndpoint.startOrReport(metricsAddress, NAME, out, err);
                if (metrics == null) {
                    return 1;
                }
            }
            return host(flags, metrics, out, err, stop);
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
    }

    private static int host(Map<String, List<String>> flags, MetricsEndpoint metrics, PrintStream out, PrintStream err,
            CompletableFuture<Void> stop) {
        Path root = Path.of(flags.get("--root").get(0)).toAbsolutePath().normalize();
        Path manifest = Path.of(flags.get("--spaces").get(0)).toAbsolutePath();
        CalloutHost.Options.Builder options = CalloutHost.Options.builder().servers(flags.get("--server"))
                .manifest(manifest).stateRoot(root.resolve(".cotal").resolve("auth-host"))
                .secretStore(new FileSecretStore(root))
                .onRefusal((space, why) -> err.println(NAME + ": space " + space + " refused (retried every 5 s): " + why));
        if (metrics != null) {
            options.meterSink(MicrometerSink.of(metrics.registry()));
        }
        try (CalloutHost host = CalloutHost.start(options.build())) {
            report(host, manifest, out);
            ManifestWatch.run(() -> {
                host.apply();
                report(host, manifest, out);
            }, host.appliedFile(), manifest, NAME, err, stop);
            return 0;
        } catch (RuntimeException e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        }
    }

    private static void report(CalloutHost host, Path manifest, PrintStream out) {
        out.println(NAME + ": applied " + manifest + ": answering for " + host.serving() + ", refused "
                + host.refused().keySet());
    }
}
