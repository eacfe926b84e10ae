package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a broker was started with and must keep: its transport and, when it runs a full account
 * resolver, that resolver's limit and interval. nats-server picks both only at start, so a render
 * that disagrees with the policy is refused ({@link ServerConfig#render}). The workspace keeps the
 * policy in {@code .cotal/broker-policy.json} and derives the resolver directory from its root.
 * Immutable.
 */
public record BrokerPolicy(Transport transport, Optional<FullResolver> accountResolver) {
    /** The policy's full-resolver settings; the directory is derived, never stored. */
    public record FullResolver(int limit, Duration interval) {
        public FullResolver {
            Objects.requireNonNull(interval, "interval");
            if (limit <= 0) {
                throw CotalException.badRequest("accountResolver.limit", "must be positive");
            }
            if (interval.toSeconds() < 1) {
                throw CotalException.badRequest("accountResolver.intervalSeconds", "must be at least 1");
            }
        }
    }

    public BrokerPolicy {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(accountResolver, "accountResolver");
    }

    /** Refuses {@code options} that would start or reload this broker differently. */
    void check(ServerConfigOptions options) {
        if (!transport.equals(options.transport())) {
            throw CotalException.badRequest("transport", "differs from the broker policy (" + describe(transport)
                    + "); a broker's transport changes only by stopping it and starting it again");
        }
        AccountResolver resolver = options.resolver();
        if (accountResolver.isEmpty() && !(resolver instanceof AccountResolver.Memory)) {
            throw CotalException.badRequest("resolver", "the broker policy says MEMORY; nats-server changes its"
                    + " resolver only at start");
        }
        if (accountResolver.isPresent()) {
            FullResolver policy = accountResolver.get();
            if (!(resolver instanceof AccountResolver.Full full)) {
                throw CotalException.badRequest("resolver", "the broker policy says full; nats-server changes its"
                        + " resolver only at start");
            }
            if (full.limit() != policy.limit() || !full.interval().equals(policy.interval())) {
                throw CotalException.badRequest("resolver", "limit or interval differ from the broker policy");
            }
        }
    }

    private static String describe(Transport transport) {
        return transport instanceof Transport.TlsRequired ? "tls-required" : "plaintext";
    }
}
