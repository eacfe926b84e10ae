package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.core.CotalException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Options of {@link TokenExchange#start}, immutable and validated in {@link Builder#build()}.
 * The loopback face always binds {@code 127.0.0.1} (port 0 by default) and requires the
 * capability written to {@code <stateDir>/auth-service.json}; the public face is optional and
 * binds where the host says (put a TLS proxy in front of it, named by {@code trustedProxy}).
 * Each face runs on its own bounded server: {@code maxConnections} open connections at most,
 * {@code maxConnectionsPerPeer} per direct peer address, {@code workerThreads} threads, and a
 * request's headers and body must arrive within {@code readDeadline} (SPEC §13.17). Thread-safe.
 */
public final class ExchangeOptions {
    /** The highest {@code refusalsPerMinute}: a window keeps up to that many timestamps. */
    public static final int MAX_REFUSALS_PER_MINUTE = 1_000_000;
    /** The highest {@code maxConnections} per face (each open connection holds a file descriptor). */
    public static final int MAX_CONNECTIONS = 10_000;
    /** The fewest and the most {@code workerThreads} per face (one accepts, one selects, the rest serve). */
    public static final int MIN_WORKER_THREADS = 4;
    public static final int MAX_WORKER_THREADS = 64;
    /** The bounds of {@code readDeadline}. */
    public static final Duration MIN_READ_DEADLINE = Duration.ofMillis(100);
    public static final Duration MAX_READ_DEADLINE = Duration.ofMinutes(2);

    private final AuthAuthorityPlane plane;
    private final Path stateDir;
    private final int loopbackPort;
    private final Optional<InetSocketAddress> publicAddress;
    private final JwksSource jwks;
    private final Clock clock;
    private final int refusalsPerMinute;
    private final int maxInFlight;
    private final Duration deadline;
    private final int maxConnections;
    private final int maxConnectionsPerPeer;
    private final int workerThreads;
    private final Duration readDeadline;
    private final Optional<InetAddress> trustedProxy;

    private ExchangeOptions(Builder b, JwksSource jwks) {
        this.plane = b.plane;
        this.stateDir = b.stateDir;
        this.loopbackPort = b.loopbackPort;
        this.publicAddress = Optional.ofNullable(b.publicAddress);
        this.jwks = jwks;
        this.clock = b.clock;
        this.refusalsPerMinute = b.refusalsPerMinute;
        this.maxInFlight = b.maxInFlight;
        this.deadline = b.deadline;
        this.maxConnections = b.maxConnections;
        this.maxConnectionsPerPeer = b.maxConnectionsPerPeer;
        this.workerThreads = b.workerThreads;
        this.readDeadline = b.readDeadline;
        this.trustedProxy = Optional.ofNullable(b.trustedProxy);
    }

    public static Builder builder() {
        return new Builder();
    }

    public AuthAuthorityPlane plane() {
        return plane;
    }

    public Path stateDir() {
        return stateDir;
    }

    public int loopbackPort() {
        return loopbackPort;
    }

    public Optional<InetSocketAddress> publicAddress() {
        return publicAddress;
    }

    public JwksSource jwks() {
        return jwks;
    }

    public Clock clock() {
        return clock;
    }

    public int refusalsPerMinute() {
        return refusalsPerMinute;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public Duration deadline() {
        return deadline;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public int maxConnectionsPerPeer() {
        return maxConnectionsPerPeer;
    }

    public int workerThreads() {
        return workerThreads;
    }

    public Duration readDeadline() {
        return readDeadline;
    }

    public Optional<InetAddress> trustedProxy() {
        return trustedProxy;
    }

    @Override
    public String toString() {
        return "ExchangeOptions[stateDir=" + stateDir + ", loopbackPort=" + loopbackPort + ", publicAddress="
                + publicAddress + ", refusalsPerMinute=" + refusalsPerMinute + ", maxInFlight=" + maxInFlight
                + ", deadline=" + deadline + ", maxConnections=" + maxConnections + ", maxConnectionsPerPeer="
                + maxConnectionsPerPeer + ", workerThreads=" + workerThreads + ", readDeadline=" + readDeadline
                + ", trustedProxy=" + trustedProxy + "]";
    }

    /** Builds {@link ExchangeOptions}. */
    public static final class Builder {
        private AuthAuthorityPlane plane;
        private Path stateDir;
        private int loopbackPort;
        private InetSocketAddress publicAddress;
        private JwksSource jwks;
        private Clock clock = Clock.systemUTC();
        private int refusalsPerMinute = 30;
        private int maxInFlight = 64;
        private Duration deadline = Duration.ofSeconds(10);
        private int maxConnections = 256;
        private int maxConnectionsPerPeer = 32;
        private int workerThreads = 16;
        private Duration readDeadline = Duration.ofSeconds(10);
        private InetAddress trustedProxy;

        private Builder() {
        }

        public Builder plane(AuthAuthorityPlane plane) {
            this.plane = plane;
            return this;
        }

        /** Where {@code auth-service.json} (URL and capability, 0600) is written. */
        public Builder stateDir(Path stateDir) {
            this.stateDir = stateDir;
            return this;
        }

        public Builder loopbackPort(int port) {
            this.loopbackPort = port;
            return this;
        }

        /** Also serve the public face at this address. */
        public Builder publicAddress(InetSocketAddress address) {
            this.publicAddress = address;
            return this;
        }

        /** The IdP key source (default: {@link HttpJwksSource}). */
        public Builder jwks(JwksSource jwks) {
            this.jwks = jwks;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Refused exchanges allowed per rolling minute (per face on loopback, per peer in public),
         * 1 to {@value ExchangeOptions#MAX_REFUSALS_PER_MINUTE}; 30 by default.
         */
        public Builder refusalsPerMinute(int limit) {
            this.refusalsPerMinute = limit;
            return this;
        }

        /** Public face: requests in flight at once (more get 503 busy). */
        public Builder maxInFlight(int limit) {
            this.maxInFlight = limit;
            return this;
        }

        /** Public face: the longest an exchange may take (longer gets 503). */
        public Builder deadline(Duration deadline) {
            this.deadline = deadline;
            return this;
        }

        /**
         * Open connections per face, 1 to {@value ExchangeOptions#MAX_CONNECTIONS}; 256 by default.
         * At the cap the face stops accepting until one closes: further connections wait in the
         * kernel's backlog (one that races the cap is accepted and closed at once).
         */
        public Builder maxConnections(int limit) {
            this.maxConnections = limit;
            return this;
        }

        /**
         * Open connections per direct peer address on each face, 1 to {@code maxConnections}; 32 by
         * default. The excess is closed as soon as it is accepted. The trusted proxy is exempt (only
         * the face's cap counts its connections).
         */
        public Builder maxConnectionsPerPeer(int limit) {
            this.maxConnectionsPerPeer = limit;
            return this;
        }

        /**
         * Threads per face (acceptor, selector and request work), {@value ExchangeOptions#MIN_WORKER_THREADS}
         * to {@value ExchangeOptions#MAX_WORKER_THREADS}; 16 by default.
         */
        public Builder workerThreads(int threads) {
            this.workerThreads = threads;
            return this;
        }

        /**
         * The longest a request may take to arrive, headers and body together, counted from the
         * connection's opening or the previous answer; 100 ms to 2 min, 10 s by default. A late
         * request's connection is closed unanswered; so is an idle keep-alive connection.
         */
        public Builder readDeadline(Duration deadline) {
            this.readDeadline = deadline;
            return this;
        }

        /**
         * The TLS proxy in front of the public face (optional): only for connections from this
         * address is the client taken from {@code X-Forwarded-For} (the right-most hop that is not
         * the proxy); otherwise the header is ignored.
         */
        public Builder trustedProxy(InetAddress proxy) {
            this.trustedProxy = proxy;
            return this;
        }

        public ExchangeOptions build() {
            if (plane == null) {
                throw CotalException.badRequest("plane", "an open authority plane is required");
            }
            if (stateDir == null) {
                throw CotalException.badRequest("stateDir", "is required (the capability file lives there)");
            }
            if (loopbackPort < 0 || loopbackPort > 65535) {
                throw CotalException.badRequest("loopbackPort", "must be 0 to 65535");
            }
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
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            return new ExchangeOptions(this, jwks != null ? jwks : new HttpJwksSource(clock));
        }
    }
}
