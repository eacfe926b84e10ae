package ai.cotal.cli;

import java.io.PrintStream;

/**
 * The {@code cotal-auth} command ({@code scripts/cotal-auth}). Commands: {@code demo},
 * {@code serve}, {@code signer}, {@code callout-host}, {@code service-endpoint}, {@code lifecycle retire}, {@code actor grant|revoke|list},
 * {@code space add|list|retire|reinstate|backup|restore}, {@code grant subjects}, {@code up}. Exit
 * codes: 0 done, 1 failed (or a denied or held answer, or a retirement that retired nothing), 2
 * usage.
 */
public final class CotalAuth {
    private CotalAuth() {
    }

    public static void main(String[] args) {
        java.util.concurrent.CompletableFuture<Void> stop = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.complete(null); // SIGINT or SIGTERM: let the command close what it runs, then halt
            try {
                done.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cotal-auth-stop"));
        int code = 1;
        try {
            code = run(args, System.out, System.err, stop);
        } catch (RuntimeException e) {
            System.err.println("cotal-auth: " + e.getMessage());
        } finally {
            done.countDown();
        }
        System.exit(code);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, new java.util.concurrent.CompletableFuture<>());
    }

    static int run(String[] args, PrintStream out, PrintStream err, java.util.concurrent.CompletableFuture<Void> stop) {
        if (args.length >= 1 && args[0].equals("service-endpoint")) {
            return ServiceEndpointCommand.run(java.util.List.of(args).subList(1, args.length), out, err);
        }
        if (args.length >= 1 && args[0].equals("space")) {
            return SpaceCommand.run(java.util.List.of(args).subList(1, args.length), out, err, java.time.Clock.systemUTC());
        }
        if (args.length >= 1 && args[0].equals("grant")) {
            return GrantCommand.run(java.util.List.of(args).subList(1, args.length), out, err);
        }
        if (args.length >= 1 && args[0].equals("up")) {
            return UpCommand.run(java.util.List.of(args).subList(1, args.length), out, err, java.time.Clock.systemUTC());
        }
        if (args.length >= 1 && args[0].equals("actor")) {
            return ActorCommand.run(java.util.List.of(args).subList(1, args.length), out, err);
        }
        if (args.length >= 1 && args[0].equals("lifecycle")) {
            return LifecycleCommand.run(java.util.List.of(args).subList(1, args.length), out, err);
        }
        if (args.length >= 1 && args[0].equals("callout-host")) {
            return CalloutHostCommand.run(java.util.List.of(args).subList(1, args.length), out, err, stop);
        }
        if (args.length >= 1 && args[0].equals("serve")) {
            return Serve.run(java.util.List.of(args).subList(1, args.length), out, err, stop);
        }
        if (args.length >= 1 && args[0].equals("signer")) {
            return SignerCommand.run(java.util.List.of(args).subList(1, args.length), out, err, stop);
        }
        if (args.length >= 1 && args[0].equals("demo")) {
            return DemoCommand.run(java.util.List.of(args).subList(1, args.length), out, err);
        }
        err.println("usage: cotal-auth demo | cotal-auth serve ... | cotal-auth signer ... | cotal-auth callout-host ..."
                + " | cotal-auth service-endpoint ... | cotal-auth lifecycle retire ... | cotal-auth actor ... | cotal-auth space ... | cotal-auth grant subjects ..."
                + " | cotal-auth up ...");
        err.println("  demo   start the project's nats-server, provision a space in a temporary root, run the stock");
        err.println("         auth service with service endpoints, and drive the host route end to end;");
        err.println("         --oidc-issuer URL --oidc-client-id ID --oidc-token-file FILE [--oidc-alg ALG ...] pins that");
        err.println("         OpenID Connect provider instead of a local one and signs in with the ID token in FILE");
        err.println("  serve  run the stock service: --space NAME [--service-endpoints] | --spaces MANIFEST,");
        err.println("         with --server URL and --root DIR (a provisioned root), [--store-replicas 1|3|5] (the");
        err.println("         authority stores' replicas, 1 unless given), [--ledger files|store] (where the actor");
        err.println("         ledger and IdP pin live, files unless given); stops on SIGINT or SIGTERM;");
        err.println("         --signer-socket PATH signs through a remote signer (the root then holds no seed);");
        err.println("         --grant-policy FILE grants people by their ID token's claims (docs/connecting.md);");
        err.println("         --metrics [HOST:]PORT serves GET /metrics for Prometheus (docs/operations.md)");
        err.println("  signer --space NAME --socket PATH --root DIR [--policy FILE] [--audit FILE] [--socket-group GROUP]");
        err.println("         hold the space's signing seed and sign, over a Unix socket, what the policy admits");
        err.println("         (docs/remote-signer.md); stops on SIGINT or SIGTERM");
        err.println("  callout-host  run callout replicas for the spaces of --spaces MANIFEST, with --server URL and");
        err.println("         --root DIR [--metrics [HOST:]PORT]; re-applied when the manifest changes, stops on SIGINT");
        err.println("         or SIGTERM");
        err.println("  service-endpoint --space NAME (--state DIR | --url URL) --token-file FILE REQUEST_JSON");
        err.println("         send one host request as the signed-in user and print the result");
        err.println("  lifecycle retire (--interactive | --managed) --space NAME --state DIR --owner OWNER --actor ACTOR");
        err.println("         --lifecycle-uid UID: retire one lifecycle through the running service's loopback face");
        err.println("  actor (grant | revoke | list) --space NAME --state DIR (--subject SUB | --owner OWNER) [--actor ACTOR]");
        err.println("         [--scope X,...] [--subscribe CH,...] [--publish CH,...] [--label TEXT]: a person's interactive");
        err.println("         actors, through the running service's loopback face (docs/connecting.md)");
        err.println("  space (add | list | retire | reinstate | backup | restore) --root DIR ...: the per-space lifecycle");
        err.println("         of a root's tenants on a shared broker (docs/cli.md)");
        err.println("  grant subjects --space NAME --owner OWNER --actor ACTOR [--publish CH,...] [--subscribe CH,...]");
        err.println("         [--nonce NONCE]: print the subjects such a grant opens to one connection (nothing is read");
        err.println("         or written)");
        err.println("  up --root DIR [--host H] [--port N] [--store-dir DIR]: render the broker config of every tenant");
        return 2;
    }
}
