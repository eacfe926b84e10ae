package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * Options of {@link AuthCallout#start}, immutable and validated in {@link Builder#build()}: the
 * broker URLs, the space's callout material ({@link CalloutAuth}), the open authority plane, the
 * data account's signer (it signs every admitted user), the servers whose requests are answered
 * (empty: any server of this broker), the queue group, the clock, an optional TLS context and an
 * optional Micrometer registry.
 * Thread-safe; {@code toString()} shows neither the signer nor the callout material.
 */
public final class CalloutOptions {
    /** The queue group every responder of a space joins. */
    public static final String QUEUE_GROUP = "cotal-auth-callout";

    private final List<String> servers;
    private final CalloutAuth callout;
    private final CalloutAuthority plane;
    private final SpaceSigner signer;
    private final Set<String> expectedServerIds;
    private final String queueGroup;
    private final Clock clock;
    private final SSLContext sslContext;
    private final AuthMetrics metrics;

    private CalloutOptions(Builder b) {
        this.servers = List.copyOf(b.servers);
        this.callout = b.callout;
        this.plane = b.plane;
        this.signer = b.signer;
        this.expectedServerIds = Set.copyOf(b.expectedServerIds);
        this.queueGroup = b.queueGroup;
        this.clock = b.clock;
        this.sslContext = b.sslContext;
        this.metrics = AuthMetrics.of(b.meterSink, b.meterSpaceTag, b.plane.space());
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<String> servers() {
        return servers;
    }

    public CalloutAuth callout() {
        return callout;
    }

    public CalloutAuthority plane() {
        return plane;
    }

    public SpaceSigner signer() {
        return signer;
    }

    public Set<String> expectedServerIds() {
        return expectedServerIds;
    }

    public String queueGroup() {
        return queueGroup;
    }

    public Clock clock() {
        return clock;
    }

    /** The TLS context of the responder's connection, or null. */
    public SSLContext sslContext() {
        return sslContext;
    }

    /** Where the responder's meters go (SPEC §13.21): nothing unless a registry was given. */
    AuthMetrics metrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return "CalloutOptions[servers=" + servers + ", space=" + plane.space() + ", expectedServerIds="
                + expectedServerIds + ", queueGroup=" + queueGroup + ", tls=" + (sslContext != null) + ", metered="
                + (metrics != AuthMetrics.NONE) + "]";
    }

    /** Builds {@link CalloutOptions}. */
    public static final class Builder {
        private List<String> servers = List.of();
        private CalloutAuth callout;
        private CalloutAuthority plane;
        private SpaceSigner signer;
        private Set<String> expectedServerIds = Set.of();
        private String queueGroup = QUEUE_GROUP;
        private Clock clock = Clock.systemUTC();
        private SSLContext sslContext;
        private MeterSink meterSink;
        private boolean meterSpaceTag;

        private Builder() {
        }

        /**
         * Where the responder reports its meters (SPEC §13.21): its decisions by outcome and reason,
         * its latency, and whether it is answering. Unset or null: nothing is measured.
         */
        public Builder meterSink(MeterSink sink) {
            this.meterSink = sink;
            return this;
        }

        /** The per-space opt-in: every meter carries {@code space} (default false; needs a sink). */
        public Builder meterSpaceTag(boolean tag) {
            this.meterSpaceTag = tag;
            return this;
        }

        public Builder servers(List<String> urls) {
            this.servers = urls;
            return this;
        }

        public Builder server(String url) {
            return servers(List.of(url));
        }

        public Builder callout(CalloutAuth callout) {
            this.callout = callout;
            return this;
        }

        /** The authority the callout asks: the space's plane, or a replica's read-side authority. */
        public Builder plane(CalloutAuthority plane) {
            this.plane = plane;
            return this;
        }

        public Builder signer(SpaceSigner signer) {
            this.signer = signer;
            return this;
        }

        /** Answer only requests from these servers ({@code N...}); empty answers any server of the broker. */
        public Builder expectedServerIds(Set<String> ids) {
            this.expectedServerIds = ids;
            return this;
        }

        public Builder queueGroup(String group) {
            this.queueGroup = group;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        public CalloutOptions build() {
            NatsConnector.checkServers(servers);
            if (callout == null) {
                throw CotalException.badRequest("callout", "the space's callout material is required");
            }
            if (plane == null) {
                throw CotalException.badRequest("plane", "an open authority plane is required");
            }
            if (signer == null || !signer.space().equals(plane.space()) || !callout.space().equals(plane.space())) {
                throw CotalException.badRequest("signer", "signer, callout and plane must be of one space");
            }
            if (expectedServerIds == null) {
                throw CotalException.badRequest("expectedServerIds", "may be empty, not null");
            }
            for (String id : expectedServerIds) {
                if (!NKeyCodec.isPublic(id, KeyType.SERVER)) {
                    throw CotalException.badRequest("expectedServerIds", "'" + id + "' is not a server id");
                }
            }
            if (queueGroup == null || !queueGroup.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw CotalException.badRequest("queueGroup", "must be a queue group name");
            }
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            AuthMetrics.check(meterSink, meterSpaceTag);
            return new CalloutOptions(this);
        }
    }
}
