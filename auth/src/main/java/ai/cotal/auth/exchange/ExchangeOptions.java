package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.core.CotalException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Options of {@link TokenExchange#start}, immutable and validated in {@link Builder#build()}.
 * The loopback face always binds {@code 127.0.0.1} (port 0 by default) and requires the
 * capability written to {@code <stateDir>/auth-service.json}; the public face is optional and
 * binds where the host says (put a TLS proxy in front of it).
 */
public record ExchangeOptions(AuthAuthorityPlane plane, Path stateDir, int loopbackPort,
        Optional<InetSocketAddress> publicAddress, JwksSource jwks, Clock clock, int refusalsPerMinute,
        int maxInFlight, Duration deadline) {
    /** The highest {@code refusalsPerMinute}: a window keeps up to that many timestamps. */
    public static final int MAX_REFUSALS_PER_MINUTE = 1_000_000;

    public static Builder builder() {
        return new Builder();
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
            return new ExchangeOptions(plane, stateDir, loopbackPort, Optional.ofNullable(publicAddress),
                    jwks != null ? jwks : new HttpJwksSource(clock), clock, refusalsPerMinute, maxInFlight, deadline);
        }
    }
}
