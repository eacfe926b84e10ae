package ai.cotal.member;

import io.nats.client.Options;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * What {@link CotalMember#connect} needs: the space's public URL, the actor to join as and a
 * supplier of fresh ID tokens; optionally the renewal margin, the HTTP timeout and extra jnats
 * options. Immutable and thread-safe; built by {@link #builder}, which validates everything at
 * {@link Builder#build()} ({@link MemberException} {@code bad-request} naming the field).
 */
public final class JoinOptions {
    private static final Pattern ACTOR = Pattern.compile("[A-Za-z0-9_]{1,64}");

    private final URI joinUrl;
    private final String actor;
    private final Supplier<String> idTokens;
    private final Duration renewMargin;
    private final Duration httpTimeout;
    private final Consumer<Options.Builder> jnats;

    private JoinOptions(Builder b) {
        this.joinUrl = b.joinUrl;
        this.actor = b.actor;
        this.idTokens = b.idTokens;
        this.renewMargin = b.renewMargin;
        this.httpTimeout = b.httpTimeout;
        this.jnats = b.jnats;
    }

    /**
     * A builder for joining the space served at {@code joinUrl} (the public face's base URL, e.g.
     * {@code https://auth.example.com}) as {@code actor}, exchanging the ID tokens {@code idTokens}
     * supplies: it is asked at the first exchange and at each renewal, so it should hand out a
     * token that is fresh (refreshing it with the identity provider when needed).
     */
    public static Builder builder(URI joinUrl, String actor, Supplier<String> idTokens) {
        return new Builder(joinUrl, actor, idTokens);
    }

    /** The public face's base URL. */
    public URI joinUrl() {
        return joinUrl;
    }

    /** The actor joined as. */
    public String actor() {
        return actor;
    }

    Supplier<String> idTokens() {
        return idTokens;
    }

    /** The renewal margin, or null for the default (the lesser of 60 s and a quarter of the bearer's life). */
    public Duration renewMargin() {
        return renewMargin;
    }

    /** How long one HTTP request to the service may take. */
    public Duration httpTimeout() {
        return httpTimeout;
    }

    Consumer<Options.Builder> jnats() {
        return jnats;
    }

    @Override
    public String toString() {
        return "JoinOptions[" + joinUrl + ", actor " + actor + "]";
    }

    /** Builds {@link JoinOptions}; not thread-safe. */
    public static final class Builder {
        private final URI joinUrl;
        private final String actor;
        private final Supplier<String> idTokens;
        private Duration renewMargin;
        private Duration httpTimeout = Duration.ofSeconds(10);
        private Consumer<Options.Builder> jnats = b -> { };

        private Builder(URI joinUrl, String actor, Supplier<String> idTokens) {
            this.joinUrl = joinUrl;
            this.actor = actor;
            this.idTokens = idTokens;
        }

        /** Starts each renewal this long before the bearer's expiry: 1 s to 1 h. */
        public Builder renewMargin(Duration margin) {
            this.renewMargin = margin;
            return this;
        }

        /** The timeout of each HTTP request to the service: 1 s to 2 min (default 10 s). */
        public Builder httpTimeout(Duration timeout) {
            this.httpTimeout = timeout;
            return this;
        }

        /**
         * Extra jnats options, applied before the connector's own: the server, credentials, token,
         * connection name, inbox prefix, control line and reconnect limit are the connector's.
         */
        public Builder jnats(Consumer<Options.Builder> extra) {
            this.jnats = Objects.requireNonNull(extra, "jnats");
            return this;
        }

        /** Validates and builds; {@link MemberException} {@code bad-request} naming the field. */
        public JoinOptions build() {
            checkJoinUrl(joinUrl);
            if (actor == null || !ACTOR.matcher(actor).matches()) {
                throw MemberException.badRequest("actor", "must be 1 to 64 of [A-Za-z0-9_]");
            }
            if (idTokens == null) {
                throw MemberException.badRequest("idTokens", "is required");
            }
            if (renewMargin != null && (renewMargin.compareTo(Duration.ofSeconds(1)) < 0
                    || renewMargin.compareTo(Duration.ofHours(1)) > 0)) {
                throw MemberException.badRequest("renewMargin", "must be 1 s to 1 h");
            }
            if (httpTimeout == null || httpTimeout.compareTo(Duration.ofSeconds(1)) < 0
                    || httpTimeout.compareTo(Duration.ofMinutes(2)) > 0) {
                throw MemberException.badRequest("httpTimeout", "must be 1 s to 2 min");
            }
            return new JoinOptions(this);
        }

        private static void checkJoinUrl(URI url) {
            if (url == null || !url.isAbsolute() || url.getHost() == null) {
                throw MemberException.badRequest("joinUrl", "must be an absolute http(s) URL with a host");
            }
            if (url.getUserInfo() != null || url.getQuery() != null || url.getFragment() != null) {
                throw MemberException.badRequest("joinUrl", "must not carry user info, a query or a fragment");
            }
            String scheme = url.getScheme().toLowerCase(Locale.ROOT);
            if (scheme.equals("http")) {
                if (!loopback(url.getHost())) {
                    throw MemberException.badRequest("joinUrl", "http is only for a loopback host; use https");
                }
            } else if (!scheme.equals("https")) {
                throw MemberException.badRequest("joinUrl", "must be https (or http to a loopback host)");
            }
        }

        private static boolean loopback(String host) {
            if (host.equalsIgnoreCase("localhost")) {
                return true;
            }
            String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
            if (!bare.matches("[0-9.]+|[0-9A-Fa-f:]+")) {
                return false; // a name other than localhost is not resolved here
            }
            try {
                return InetAddress.getByName(bare).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
    }
}
