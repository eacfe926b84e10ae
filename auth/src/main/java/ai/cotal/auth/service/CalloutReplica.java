package ai.cotal.auth.service;

import ai.cotal.auth.callout.AuthCallout;
import ai.cotal.auth.callout.CalloutOptions;
import ai.cotal.auth.internal.replica.ReplicaAuthority;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Callout replicas (SPEC §13.19): extra auth-callout responders, in the space's queue group, that
 * answer from a {@link ReplicaAuthority} instead of the plane. A replica cannot issue
 * service-endpoint connections, so it refuses a space whose service-endpoint admission is open
 * ({@link ServiceEndpointAdmission#admitsServiceEndpoints}, the same read): a single-space replica
 * refuses to start; a multi-space replica names the space, answers for the others, and retries the
 * refused space every {@code retry} (5 s by default). Thread-safe.
 */
public final class CalloutReplica implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CalloutReplica.class);

    /**
     * What a replica serves, validated in {@link Builder#build()}. {@code stateDirs} maps each space
     * to the state directory holding its ledger (the plane's, shared or synced). {@code ttl} is the
     * lifetime of the replica's standing credentials (default 15 min), {@code retry} how often a
     * refused space is tried again (default 5 s); {@code onRefusal} hears every refusal (space,
     * reason). Immutable; {@code toString()} never shows the store.
     */
    public static final class Options {
        private final List<String> servers;
        private final Map<String, Path> stateDirs;
        private final SecretStore secrets;
        private final Duration ttl;
        private final Duration retry;
        private final Clock clock;
        private final BiConsumer<String, String> onRefusal;

        private Options(Builder b) {
            this.servers = List.copyOf(b.servers);
            this.stateDirs = Map.copyOf(new LinkedHashMap<>(b.stateDirs));
            this.secrets = b.secrets;
            this.ttl = b.ttl;
            this.retry = b.retry;
            this.clock = b.clock;
            this.onRefusal = b.onRefusal;
        }

        public static Builder builder() {
            return new Builder();
        }

        public List<String> servers() {
            return servers;
        }

        public Map<String, Path> stateDirs() {
            return stateDirs;
        }

        public SecretStore secrets() {
            return secrets;
        }

        public Duration ttl() {
            return ttl;
        }

        public Duration retry() {
            return retry;
        }

        public Clock clock() {
            return clock;
        }

        public BiConsumer<String, String> onRefusal() {
            return onRefusal;
        }

        @Override
        public String toString() {
            return "CalloutReplica.Options[servers=" + servers + ", stateDirs=" + stateDirs + ", ttl=" + ttl + ", retry="
                    + retry + "]";
        }

        /** Builds {@link Options}; {@link #build()} names the first bad option. */
        public static final class Builder {
            private List<String> servers = List.of();
            private Map<String, Path> stateDirs = Map.of();
            private SecretStore secrets;
            private Duration ttl = Duration.ofMinutes(15);
            private Duration retry = Duration.ofSeconds(5);
            private Clock clock = Clock.systemUTC();
            private BiConsumer<String, String> onRefusal = (space, why) -> { };

            private Builder() {
            }

            public Builder servers(List<String> urls) {
                this.servers = urls;
                return this;
            }

            public Builder server(String url) {
                return servers(List.of(url));
            }

            /** Each space answered for, with the state directory holding its ledger. */
            public Builder stateDirs(Map<String, Path> stateDirs) {
                this.stateDirs = stateDirs;
                return this;
            }

            public Builder secrets(SecretStore store) {
                this.secrets = store;
                return this;
            }

            public Builder ttl(Duration ttl) {
                this.ttl = ttl;
                return this;
            }

            public Builder retry(Duration every) {
                this.retry = every;
                return this;
            }

            public Builder clock(Clock clock) {
                this.clock = clock;
                return this;
            }

            public Builder onRefusal(BiConsumer<String, String> listener) {
                this.onRefusal = listener;
                return this;
            }

            public Options build() {
                if (servers == null || servers.isEmpty() || servers.stream().anyMatch(s -> s == null || s.isBlank())) {
                    throw CotalException.badRequest("servers", "at least one broker URL");
                }
                if (stateDirs == null || stateDirs.isEmpty()) {
                    throw CotalException.badRequest("stateDirs", "name at least one space");
                }
                if (stateDirs.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
                    throw CotalException.badRequest("stateDirs", "a space and its state directory are both required");
                }
                if (secrets == null) {
                    throw CotalException.badRequest("secrets", "is required");
                }
                if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                    throw CotalException.badRequest("ttl", "must be positive");
                }
                if (retry == null || retry.isNegative() || retry.isZero()) {
                    throw CotalException.badRequest("retry", "must be positive");
                }
                if (clock == null) {
                    throw CotalException.badRequest("clock", "is required");
                }
                if (onRefusal == null) {
                    throw CotalException.badRequest("onRefusal", "is required");
                }
                return new Options(this);
            }
        }
    }

    private record Lane(ReplicaAuthority authority, AuthCallout callout) {
    }

    private final Options options;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private final Map<String, String> refused = new ConcurrentHashMap<>();
    private final ScheduledExecutorService retries;
    private volatile boolean closed;

    private CalloutReplica(Options options) {
        this.options = options;
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cotal-callout-replica-retry");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts a lane per space; see the class comment for refused spaces. */
    public static CalloutReplica start(Options options) {
        CalloutReplica replica = new CalloutReplica(options);
        for (String space : options.stateDirs().keySet()) {
            String why = replica.tryStart(space);
            if (why != null && options.stateDirs().size() == 1) {
                replica.close();
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "callout replica refused space \"" + space
                        + "\": " + why);
            }
        }
        if (!replica.refused.isEmpty()) {
            replica.ensureRetrying();
        }
        return replica;
    }

    /**
     * Starts one lane; returns null, or why the space is refused (recorded and reported). Runs
     * under the replica's lock, so a retry and {@link #close()} never interleave.
     */
    private synchronized String tryStart(String space) {
        if (closed) {
            return "the replica is closed";
        }
        String why;
        try {
            if (ServiceEndpointAdmission.admitsServiceEndpoints(space, options.servers(), options.secrets())) {
                why = "its service-endpoint admission is open and a replica cannot issue service-endpoint connections";
            } else {
                ServiceMaterial.Loaded material = ServiceMaterial.load(options.secrets(), space);
                ReplicaAuthority authority = ReplicaAuthority.open(options.servers(), material.signer(),
                        options.stateDirs().get(space), options.secrets(), options.ttl(), options.clock());
                try {
                    AuthCallout callout = AuthCallout.start(CalloutOptions.builder().servers(options.servers())
                            .callout(material.callout()).plane(authority).signer(material.signer()).clock(options.clock())
                            .build());
                    lanes.put(space, new Lane(authority, callout));
                    refused.remove(space);
                    // a lane whose credentials stop renewing leaves the queue group and is retried
                    authority.failure().thenAccept(failed -> retire(space, failed));
                    LOG.info("callout-replica: answering for space {}", space);
                    return null;
                } catch (RuntimeException e) {
                    authority.close();
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        refused.put(space, why);
        LOG.warn("callout-replica: space {} refused: {}", space, why);
        options.onRefusal().accept(space, why);
        return why;
    }

    /** Closes a lane whose authority failed and puts its space back on the retry list. */
    private synchronized void retire(String space, String why) {
        Lane lane = lanes.remove(space);
        if (lane != null) {
            lane.callout().close();
            lane.authority().close();
        }
        if (!closed) {
            refused.put(space, why);
            options.onRefusal().accept(space, why);
            ensureRetrying();
        }
    }

    private boolean retrying;

    private synchronized void ensureRetrying() {
        if (!retrying && !closed) {
            retrying = true;
            long every = options.retry().toMillis();
            retries.scheduleWithFixedDelay(this::retryRefused, every, every, TimeUnit.MILLISECONDS);
        }
    }

    private void retryRefused() {
        for (String space : List.copyOf(refused.keySet())) {
            if (closed) {
                return;
            }
            try {
                tryStart(space);
            } catch (RuntimeException e) {
                LOG.error("callout-replica: retry of space {} failed: {}", space, e.getMessage()); // keep retrying
            }
        }
    }

    /** The spaces answered for now. */
    public java.util.Set<String> serving() {
        return java.util.Set.copyOf(lanes.keySet());
    }

    /** The refused spaces and why (retried every {@code retry}). */
    public Map<String, String> refused() {
        return Map.copyOf(refused);
    }

    @Override
    public synchronized void close() {
        closed = true; // under the lock: no retry is starting a lane now, and none will
        retries.shutdownNow();
        for (Lane lane : lanes.values()) {
            lane.callout().close();
            lane.authority().close();
        }
        lanes.clear();
    }
}
