package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
import java.time.Duration;

/**
 * The bounds of each HTTP face (SPEC §13.17): each face runs on its own bounded server. Validated
 * at construction ({@code bad-request} naming the field); start from {@link #DEFAULT} and change
 * what differs with the {@code with…} methods. Immutable.
 *
 * @param refusalsPerMinute     refused exchanges allowed per rolling minute (per face on loopback, per peer in
 *                              public), 1 to {@value #MAX_REFUSALS_PER_MINUTE}; 30 by default
 * @param maxInFlight           public face: requests in flight at once (more get 503 busy); 64 by default
 * @param deadline              public face: the longest an exchange may take (longer gets 503); 10 s by default
 * @param maxConnections        open connections per face, 1 to {@value #MAX_CONNECTIONS}; 256 by default. At the
 *                              cap the face stops accepting until one closes: further connections wait in the
 *                              kernel's backlog (one that races the cap is accepted and closed at once)
 * @param maxConnectionsPerPeer open connections per direct peer address on each face, 1 to {@code maxConnections};
 *                              32 by default. The excess is closed as soon as it is accepted; the trusted proxy is
 *                              exempt (only the face's cap counts its connections)
 * @param workerThreads         threads per face (acceptor, selector and request work), {@value #MIN_WORKER_THREADS}
 *                              to {@value #MAX_WORKER_THREADS}; 16 by default
 * @param readDeadline          the longest a request may take to arrive, headers and body together, counted from the
 *                              connection's opening or the previous answer; 100 ms to 2 min, 10 s by default. A late
 *                              request's connection is closed unanswered; so is an idle keep-alive connection
 */
public record FaceLimits(int refusalsPerMinute, int maxInFlight, Duration deadline, int maxConnections,
        int maxConnectionsPerPeer, int workerThreads, Duration readDeadline) {
    /** The highest {@code refusalsPerMinute}: a window keeps up to that many timestamps. */
    public static final int MAX_REFUSALS_PER_MINUTE = 1_000_000;
    /** The highest {@code maxConnections} per face (each open connection holds a file descriptor). */
    public static final int MAX_CONNECTIONS = 10_000;
    /** The fewest {@code workerThreads} per face (one accepts, one selects, the rest serve). */
    public static final int MIN_WORKER_THREADS = 4;
    /** The most {@code workerThreads} per face. */
    public static final int MAX_WORKER_THREADS = 64;
    /** The shortest {@code readDeadline}. */
    public static final Duration MIN_READ_DEADLINE = Duration.ofMillis(100);
    /** The longest {@code readDeadline}. */
    public static final Duration MAX_READ_DEADLINE = Duration.ofMinutes(2);
    /** The defaults. */
    public static final FaceLimits DEFAULT = new FaceLimits(30, 64, Duration.ofSeconds(10), 256, 32, 16,
            Duration.ofSeconds(10));

    /** Checks each bound; {@code bad-request} naming the first one out of range. */
    public FaceLimits {
        if (refusalsPerMinute < 1 || refusalsPerMinute > MAX_REFUSALS_PER_MINUTE) {
            throw CotalException.badRequest("refusalsPerMinute", "must be 1 to " + MAX_REFUSALS_PER_MINUTE
                    + " (a window holds that many timestamps)");
        }
        if (maxInFlight < 1) {
            throw CotalException.badRequest("maxInFlight", "must be positive");
        }
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw CotalException.badRequest("deadline", "must be positive");
        }
        if (maxConnections < 1 || maxConnections > MAX_CONNECTIONS) {
            throw CotalException.badRequest("maxConnections", "must be 1 to " + MAX_CONNECTIONS);
        }
        if (maxConnectionsPerPeer < 1 || maxConnectionsPerPeer > maxConnections) {
            throw CotalException.badRequest("maxConnectionsPerPeer", "must be 1 to maxConnections (" + maxConnections + ")");
        }
        if (workerThreads < MIN_WORKER_THREADS || workerThreads > MAX_WORKER_THREADS) {
            throw CotalException.badRequest("workerThreads", "must be " + MIN_WORKER_THREADS + " to " + MAX_WORKER_THREADS);
        }
        if (readDeadline == null || readDeadline.compareTo(MIN_READ_DEADLINE) < 0
                || readDeadline.compareTo(MAX_READ_DEADLINE) > 0) {
            throw CotalException.badRequest("readDeadline", "must be 100 ms to 2 min");
        }
    }

    /** These limits with {@code limit} refused exchanges per rolling minute. */
    public FaceLimits withRefusalsPerMinute(int limit) {
        return new FaceLimits(limit, maxInFlight, deadline, maxConnections, maxConnectionsPerPeer, workerThreads,
                readDeadline);
    }

    /** These limits with {@code limit} requests in flight on the public face. */
    public FaceLimits withMaxInFlight(int limit) {
        return new FaceLimits(refusalsPerMinute, limit, deadline, maxConnections, maxConnectionsPerPeer, workerThreads,
                readDeadline);
    }

    /** These limits with the public face's exchange deadline {@code value}. */
    public FaceLimits withDeadline(Duration value) {
        return new FaceLimits(refusalsPerMinute, maxInFlight, value, maxConnections, maxConnectionsPerPeer, workerThreads,
                readDeadline);
    }

    /** These limits with {@code limit} open connections per face and per peer at most {@code perPeer}. */
    public FaceLimits withConnections(int limit, int perPeer) {
        return new FaceLimits(refusalsPerMinute, maxInFlight, deadline, limit, perPeer, workerThreads, readDeadline);
    }

    /** These limits with {@code threads} worker threads per face. */
    public FaceLimits withWorkerThreads(int threads) {
        return new FaceLimits(refusalsPerMinute, maxInFlight, deadline, maxConnections, maxConnectionsPerPeer, threads,
                readDeadline);
    }

    /** These limits with the read deadline {@code value}. */
    public FaceLimits withReadDeadline(Duration value) {
        return new FaceLimits(refusalsPerMinute, maxInFlight, deadline, maxConnections, maxConnectionsPerPeer,
                workerThreads, value);
    }
}
