package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.secrets.SecretStore;
import java.time.Clock;
import java.util.List;

/**
 * What every host of this package runs from: the broker URLs, the secret store and the clock. The
 * {@code Options} of {@link AuthHost}, {@link CalloutHost} and {@link CalloutReplica} extend it
 * (nothing else can: its constructors are this package's), so these setters, getters and checks
 * are written once; each subclass names the store's setter and getter ({@code secretStore} or
 * {@code secrets}). Immutable.
 */
public abstract class HostOptions {
    private final List<String> servers;
    private final SecretStore store;
    private final Clock clock;

    HostOptions(Builder<?> b) {
        this.servers = List.copyOf(b.servers);
        this.store = b.store;
        this.clock = b.clock;
    }

    /** The broker URLs. */
    public List<String> servers() {
        return servers;
    }

    /** The clock. */
    public Clock clock() {
        return clock;
    }

    SecretStore store() {
        return store;
    }

    /**
     * The shared half of the hosts' builders: each setter returns the concrete builder {@code B};
     * {@code build()} stays in the subclass, which calls the checks in the order its refusals name
     * the first bad option. Not thread-safe.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {
        List<String> servers = List.of();
        SecretStore store;
        Clock clock = Clock.systemUTC();

        Builder() {
        }

        abstract B self();

        /** The broker URLs (each checked as the one connection door checks them). */
        public B servers(List<String> urls) {
            this.servers = urls;
            return self();
        }

        /** One broker URL. */
        public B server(String url) {
            return servers(List.of(url));
        }

        /** The clock (default UTC). */
        public B clock(Clock clock) {
            this.clock = clock;
            return self();
        }

        final void checkServers() {
            NatsConnector.checkServers(servers);
        }

        /** Refuses a missing store, naming it as the subclass's setter does. */
        final void checkStore(String option) {
            if (store == null) {
                throw CotalException.badRequest(option, "is required");
            }
        }

        final void checkClock() {
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
        }
    }
}
