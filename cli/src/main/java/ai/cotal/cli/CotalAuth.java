package ai.cotal.cli;

import java.io.PrintStream;

/**
 * The {@code cotal-auth} command ({@code scripts/cotal-auth}). Commands: {@code demo}. Exit codes:
 * 0 done, 1 failed, 2 usage.
 */
public final class CotalAuth {
    private CotalAuth() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && args[0].equals("demo")) {
            try {
                new ServiceEndpointDemo(out).run();
                return 0;
            } catch (Exception e) {
                err.println("cotal-auth demo failed: " + e.getMessage());
                return 1;
            }
        }
        err.println("usage: cotal-auth demo");
        err.println("  demo   start the project's nats-server, provision a space in a temporary root, run the stock");
        err.println("         auth service with service endpoints, and drive the host route end to end");
        return 2;
    }
}
