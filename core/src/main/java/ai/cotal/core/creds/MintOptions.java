package ai.cotal.core.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Options of one mint, validated in {@link Builder#build()}: the lifetime override
 * ({@code expiresAt} xor {@code expiresInSeconds}), the host's cap ({@code maxTtl}), the
 * principal ({@code owner}, {@code actor}), the agent's lifecycle uid and channel grants, the
 * inbox id and the clock. Immutable and thread-safe.
 */
public final class MintOptions {
    /** An owner tag or actor of a minted user: the actor grammar (the ledger's owner rule binds bearers, not these). */
    private static final Pattern NAME = Actor.PATTERN;
    private static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern CONN_ID = Pattern.compile("[A-Za-z0-9_-]{8,120}");
    private static final Pattern PIN = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** The default owner of a static credential. */
    public static final String DEFAULT_OWNER = "local";

    private final Optional<Instant> expiresAt;
    private final Optional<Long> expiresInSeconds;
    private final Optional<Duration> maxTtl;
    private final String owner;
    private final Optional<String> actor;
    private final Optional<String> lifecycleUid;
    private final List<String> allowPublish;
    private final List<String> allowSubscribe;
    private final Optional<String> connId;
    private final Optional<String> pin;
    private final Clock clock;

    private MintOptions(Builder b) {
        this.expiresAt = Optional.ofNullable(b.expiresAt);
        this.expiresInSeconds = Optional.ofNullable(b.expiresInSeconds);
        this.maxTtl = Optional.ofNullable(b.maxTtl);
        this.owner = b.owner;
        this.actor = Optional.ofNullable(b.actor);
        this.lifecycleUid = Optional.ofNullable(b.lifecycleUid);
        this.allowPublish = List.copyOf(b.allowPublish);
        this.allowSubscribe = List.copyOf(b.allowSubscribe);
        this.connId = Optional.ofNullable(b.connId);
        this.pin = Optional.ofNullable(b.pin);
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Defaults: the profile's lifetime, owner {@code local}, actor and inbox = the identity, system clock. */
    public static MintOptions defaults() {
        return builder().build();
    }

    public Optional<Instant> expiresAt() {
        return expiresAt;
    }

    public Optional<Long> expiresInSeconds() {
        return expiresInSeconds;
    }

    public Optional<Duration> maxTtl() {
        return maxTtl;
    }

    public String owner() {
        return owner;
    }

    public Optional<String> actor() {
        return actor;
    }

    public Optional<String> lifecycleUid() {
        return lifecycleUid;
    }

    public List<String> allowPublish() {
        return allowPublish;
    }

    public List<String> allowSubscribe() {
        return allowSubscribe;
    }

    /** The run, instance or session id a pinned profile (SPEC §3.5) is pinned to. */
    public Optional<String> pin() {
        return pin;
    }

    public Optional<String> connId() {
        return connId;
    }

    public Clock clock() {
        return clock;
    }

    /** Builds {@link MintOptions}; {@link #build()} refuses bad values, naming the option. */
    public static final class Builder {
        private Instant expiresAt;
        private Long expiresInSeconds;
        private Duration maxTtl;
        private String owner = DEFAULT_OWNER;
        private String actor;
        private String lifecycleUid;
        private List<String> allowPublish = List.of();
        private List<String> allowSubscribe = List.of();
        private String connId;
        private String pin;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** An absolute expiry; may not be combined with {@link #expiresInSeconds}. */
        public Builder expiresAt(Instant at) {
            this.expiresAt = Objects.requireNonNull(at, "expiresAt");
            return this;
        }

        /** A relative expiry (positive); may not be combined with {@link #expiresAt}. */
        public Builder expiresInSeconds(long seconds) {
            this.expiresInSeconds = seconds;
            return this;
        }

        /**
         * The host's cap on a credential's lifetime: a requested expiry beyond it is refused, and a
         * longer (or absent) profile default is shortened to it.
         */
        public Builder maxTtl(Duration cap) {
            this.maxTtl = Objects.requireNonNull(cap, "maxTtl");
            return this;
        }

        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        public Builder actor(String actor) {
            this.actor = actor;
            return this;
        }

        public Builder lifecycleUid(String uid) {
            this.lifecycleUid = uid;
            return this;
        }

        public Builder allowPublish(List<String> channels) {
            this.allowPublish = Objects.requireNonNull(channels, "allowPublish");
            return this;
        }

        public Builder allowSubscribe(List<String> channels) {
            this.allowSubscribe = Objects.requireNonNull(channels, "allowSubscribe");
            return this;
        }

        /** The inbox id: the client connects with {@code inboxPrefix("_INBOX_" + connId)}. */
        public Builder connId(String connId) {
            this.connId = connId;
            return this;
        }

        /** The run, instance or session id of a pinned profile; refused on a profile without one. */
        public Builder pin(String pin) {
            this.pin = pin;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public MintOptions build() {
            if (expiresAt != null && expiresInSeconds != null) {
                throw CotalException.badRequest("expiresAt", "give expiresAt or expiresInSeconds, not both");
            }
            if (expiresInSeconds != null && expiresInSeconds <= 0) {
                throw CotalException.badRequest("expiresInSeconds", "must be a positive number of seconds");
            }
            if (expiresAt != null && expiresAt.getEpochSecond() < 0) {
                throw CotalException.badRequest("expiresAt", "must not be before 1970");
            }
            if (maxTtl != null && (maxTtl.isNegative() || maxTtl.isZero())) {
                throw CotalException.badRequest("maxTtl", "must be positive");
            }
            check(NAME, owner, "owner", "letters, digits and _ (1 to 64)");
            if (actor != null) {
                check(NAME, actor, "actor", "letters, digits and _ (1 to 64)");
            }
            if (lifecycleUid != null) {
                check(LifecycleUid.PATTERN, lifecycleUid, "lifecycleUid", "26 to 32 lowercase letters and digits");
            }
            if (pin != null) {
                check(PIN, pin, "pin", "1 to 64 letters, digits, _ and -");
            }
            if (connId != null) {
                check(CONN_ID, connId, "connId", "8 to 120 letters, digits, _ and -");
            }
            for (int i = 0; i < allowPublish.size(); i++) {
                check(CHANNEL, allowPublish.get(i), "allowPublish[" + i + "]", "a channel name: letters, digits, _ and -");
            }
            for (int i = 0; i < allowSubscribe.size(); i++) {
                check(CHANNEL, allowSubscribe.get(i), "allowSubscribe[" + i + "]", "a channel name: letters, digits, _ and -");
            }
            return new MintOptions(this);
        }

        private static void check(Pattern pattern, String value, String field, String grammar) {
            if (value == null || !pattern.matcher(value).matches()) {
                throw CotalException.badRequest(field, "must be " + grammar);
            }
        }
    }
}
