package ai.cotal.auth.internal.plane;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ConnTuple;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One open of the plane (SPEC §13.12 boot order): its scheduler, the standing connections it
 * opens and their unwind stack. A failed open closes what it opened in reverse and stops the
 * scheduler; a renewal failure of a standing connection (or of discovery, which only the host
 * depends on) completes its future for the plane to wire once it exists. Single-threaded.
 */
final class PlaneOpening {
    private final AuthPlaneOptions options;
    private final ai.cotal.auth.internal.metrics.AuthMetrics metrics;
    private final ScheduledExecutorService scheduler;
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private final CompletableFuture<String> renewalFailure = new CompletableFuture<>();
    private final CompletableFuture<String> discoveryFailure = new CompletableFuture<>();
    /** Connects opened together whose connections are not on the unwind stack yet. */
    private Together pending;

    PlaneOpening(AuthPlaneOptions options, ai.cotal.auth.internal.metrics.AuthMetrics metrics) {
        this.options = options;
        this.metrics = metrics;
        String space = options.space();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cotal-auth-plane-" + space);
            thread.setDaemon(true);
            return thread;
        });
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Completes with the reason when a standing connection's renewal fails. */
    CompletableFuture<String> renewalFailure() {
        return renewalFailure;
    }

    /** Completes with the reason when the discovery connection's renewal fails (the host only). */
    CompletableFuture<String> discoveryFailure() {
        return discoveryFailure;
    }

    /** Opens the role's connection (a standing one's turnovers counted) and pushes it on the unwind stack. */
    AuthorityConnection connect(AuthorityRole role) {
        AuthorityConnection connection = open(role);
        opened.push(connection);
        return connection;
    }

    private AuthorityConnection open(AuthorityRole role) {
        CompletableFuture<String> failure = role == AuthorityRole.DISCOVERY ? discoveryFailure : renewalFailure;
        AuthorityConnection connection = AuthorityConnection.open(options.servers(), options.signer(), role,
                options.standingTtl(), options.clock(), scheduler, options.sslContext().orElse(null), failure::complete);
        if (role.reconnects()) {
            String label = role.view().label();
            connection.onTurnover(() -> metrics.turnover(label));
        }
        return connection;
    }

    /**
     * The standing connections of an open, in the order they go on the unwind stack: the admin's
     * first (an unwind closes it last; it subscribes last anyway), then the boot order, the
     * scanners on top ({@link #releaseAfterScanners}).
     */
    static java.util.List<AuthorityRole> roles(boolean discovery) {
        java.util.List<AuthorityRole> roles = new java.util.ArrayList<>(java.util.List.of(AuthorityRole.ADMIN,
                AuthorityRole.WRITER, AuthorityRole.READER, AuthorityRole.BARRIER, AuthorityRole.ISSUER));
        if (discovery) {
            roles.add(AuthorityRole.DISCOVERY);
        }
        roles.addAll(java.util.List.of(AuthorityRole.LEDGER_SCANNER, AuthorityRole.RECORDS_SCANNER));
        return roles;
    }

    /**
     * Opens the roles' connections at the same time, one thread each (a connect waits on the
     * broker far more than it computes), and answers at once; {@link Together#get} waits for one
     * of them. Each connection goes on the unwind stack in {@code roles} order once all have
     * answered ({@link Together#all}, or the unwind), so a failed open closes them as if they had
     * been opened one after the other.
     */
    Together connectTogether(java.util.List<AuthorityRole> roles) {
        java.util.concurrent.ExecutorService threads = Executors.newFixedThreadPool(roles.size(), r -> {
            Thread thread = new Thread(r, "cotal-auth-open-" + options.space());
            thread.setDaemon(true);
            return thread;
        });
        java.util.Map<AuthorityRole, CompletableFuture<AuthorityConnection>> connects = new java.util.LinkedHashMap<>();
        try {
            for (AuthorityRole role : roles) {
                connects.put(role, CompletableFuture.supplyAsync(() -> open(role), threads));
            }
        } finally {
            threads.shutdown(); // the submitted connects run to their end; the threads then exit
        }
        Together together = new Together(connects);
        pending = together;
        return together;
    }

    /** The connections {@link #connectTogether} opens. Single-threaded, as the opening is. */
    final class Together {
        private final java.util.Map<AuthorityRole, CompletableFuture<AuthorityConnection>> connects;
        private boolean stacked;

        private Together(java.util.Map<AuthorityRole, CompletableFuture<AuthorityConnection>> connects) {
            this.connects = connects;
        }

        /** The role's connection once it is open; its failure as the connect's own exception. */
        AuthorityConnection get(AuthorityRole role) {
            return join(connects.get(role));
        }

        /** Waits for every connect, stacks the open ones in order, then throws the first failure if any. */
        void all() {
            if (stacked) {
                return;
            }
            stacked = true;
            pending = null;
            java.util.List<RuntimeException> failures = new java.util.ArrayList<>();
            for (CompletableFuture<AuthorityConnection> connect : connects.values()) {
                try {
                    opened.push(join(connect));
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
            if (!failures.isEmpty()) { // the first connect that failed, the others' failures under it
                failures.subList(1, failures.size()).forEach(failures.get(0)::addSuppressed);
                throw failures.get(0);
            }
        }

        private AuthorityConnection join(CompletableFuture<AuthorityConnection> connect) {
            try {
                return connect.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException cause) {
                    throw cause;
                }
                throw e;
            }
        }
    }

    /**
     * Puts the claim's release under the two scanners (the last two connections opened): a failed
     * open closes the scanners first, then releases the claim, then closes the rest.
     */
    void releaseAfterScanners(PlaneClaim claim) {
        AutoCloseable records = opened.pop();
        AutoCloseable ledgerScan = opened.pop();
        opened.push(claim::release);
        opened.push(ledgerScan);
        opened.push(records);
    }

    /** Closes everything opened, in reverse, adding close failures to {@code cause}; stops the scheduler. */
    void unwind(RuntimeException cause) {
        if (pending != null) {
            try {
                pending.all(); // every connect answered and stacked: none is left open
            } catch (RuntimeException e) {
                if (e != cause) {
                    cause.addSuppressed(e);
                }
            }
        }
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
        scheduler.shutdownNow();
    }

    /**
     * One round trip on each scanner: a broker lost after the claim landed refuses the open here
     * (the fence hooks are not wired yet, and the scanners never reconnect).
     */
    static void requireLive(String space, AuthorityConnection... scanners) {
        for (AuthorityConnection scanner : scanners) {
            try {
                scanner.connection().flush(Duration.ofSeconds(5));
            } catch (java.util.concurrent.TimeoutException | IllegalStateException e) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the authority plane of space \"" + space
                        + "\" lost its broker while opening; retry", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while opening the authority plane of space \""
                        + space + "\"", e);
            }
        }
    }

    /** A connection's identity as the plane claim records it. */
    static ConnTuple tuple(AuthorityConnection connection) {
        AuthorityConnection.Tuple t = connection.tuple();
        return new ConnTuple(t.serverId(), t.serverName(), t.cid(), t.userNkey());
    }
}
