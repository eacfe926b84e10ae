package ai.cotal.core.claims;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The servers a claim push expects (SPEC §5.5), by server name: every member of the broker's
 * cluster, members that are down included, or the one server of a broker without a cluster (its
 * own cluster of one). Learned with {@link AccountClaims#members(Duration)} from the JetStream
 * meta group of the server the claims connection reached, or given with {@link #of(Collection)}.
 * A server's name is the key because nats-server keeps it across restarts (and requires it on
 * every member of a JetStream cluster), while its id is regenerated at every start.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClusterMembers {
    private static final int MAX_NAME = 256;

    /** Where the members came from. */
    public enum Source {
        /** The connected server is not clustered: it is its own cluster of one. */
        LONE_SERVER,
        /** The JetStream meta group of the connected server's cluster, members that are down included. */
        META_GROUP,
        /** Given by the caller ({@link ClusterMembers#of(Collection)}). */
        GIVEN
    }

    private final Source source;
    private final String learnedFrom;
    private final Set<String> names;
    private final Set<String> offline;
    private final Set<String> unnamedPeers;

    private ClusterMembers(Source source, String learnedFrom, Set<String> names, Set<String> offline,
            Set<String> unnamedPeers) {
        this.source = source;
        this.learnedFrom = learnedFrom;
        this.names = java.util.Collections.unmodifiableSet(new TreeSet<>(names));
        this.offline = java.util.Collections.unmodifiableSet(new TreeSet<>(offline));
        this.unnamedPeers = java.util.Collections.unmodifiableSet(new TreeSet<>(unnamedPeers));
    }

    /**
     * The members given explicitly, by server name ({@code server_name}): non-empty, each 1 to 256
     * characters without whitespace or control characters, else {@code bad-request} naming
     * {@code serverNames}.
     */
    public static ClusterMembers of(Collection<String> serverNames) {
        if (serverNames == null || serverNames.isEmpty()) {
            throw CotalException.badRequest("serverNames", "name at least one server");
        }
        for (String name : serverNames) {
            if (!isServerName(name)) {
                throw CotalException.badRequest("serverNames", "'" + name + "' is not a server name (1 to " + MAX_NAME
                        + " characters, no whitespace or control character)");
            }
        }
        return new ClusterMembers(Source.GIVEN, null, Set.copyOf(serverNames), Set.of(), Set.of());
    }

    /** A server without a cluster, by the name its INFO gives. */
    static ClusterMembers loneServer(String serverName) {
        if (!isServerName(serverName)) {
            throw new CotalException(ErrorCode.INTERNAL, "the connected server's INFO carries no usable server_name");
        }
        return new ClusterMembers(Source.LONE_SERVER, serverName, Set.of(serverName), Set.of(), Set.of());
    }

    /**
     * The members a server's {@code JSZ} answer names: the answering server and every peer of its
     * meta group ({@code data.meta_cluster.replicas}, offline ones included). Refuses an answer
     * without a meta group and a meta group that knows fewer members than its {@code cluster_size}.
     */
    static ClusterMembers fromMetaGroup(String cluster, ClaimsReply jsz) {
        String asked = jsz.serverName();
        if (jsz.error() != null) {
            throw refused(asked, cluster, "it answered the JSZ request with an error (" + jsz.error() + ")");
        }
        JsonNode meta = jsz.data().path("meta_cluster");
        if (!meta.isObject()) {
            throw refused(asked, cluster, "it has no JetStream meta group (JetStream is off or not clustered there)");
        }
        JsonNode size = meta.path("cluster_size");
        if (!size.isInt() || size.asInt() < 1) {
            throw new CotalException(ErrorCode.INTERNAL, "unexpected JSZ answer from " + asked
                    + ": meta_cluster.cluster_size missing or not a positive integer");
        }
        Set<String> names = new TreeSet<>(Set.of(asked));
        Set<String> offline = new TreeSet<>();
        Set<String> unnamed = new TreeSet<>();
        JsonNode replicas = meta.path("replicas");
        if (!replicas.isMissingNode() && !replicas.isArray()) {
            throw new CotalException(ErrorCode.INTERNAL, "unexpected JSZ answer from " + asked
                    + ": meta_cluster.replicas is not a list");
        }
        for (JsonNode peer : replicas) {
            String name = peer.path("name").asText("");
            if (isServerName(name)) {
                names.add(name);
                if (peer.path("offline").asBoolean(false)) {
                    offline.add(name);
                }
            } else { // nats-server's "Server name unknown at this time (peerID: …)" holds spaces: never a name
                String id = peer.path("peer").asText("");
                if (id.isEmpty()) {
                    throw new CotalException(ErrorCode.INTERNAL, "unexpected JSZ answer from " + asked
                            + ": a meta-group peer has neither a server name nor a peer id");
                }
                unnamed.add(id);
            }
        }
        if (names.size() + unnamed.size() < size.asInt()) {
            throw refused(asked, cluster, "its meta group expects " + size.asInt() + " members but knows only "
                    + (names.size() + unnamed.size()) + " " + names + " (the cluster is still forming: a configured member"
                    + " has never joined)");
        }
        return new ClusterMembers(Source.META_GROUP, asked, names, offline, unnamed);
    }

    private static CotalException refused(String asked, String cluster, String why) {
        return CotalException.failedPrecondition("cannot learn the members of cluster " + cluster + " from server "
                + asked + ": " + why + "; give them explicitly with ClusterMembers.of(serverNames)");
    }

    private static boolean isServerName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME) {
            return false;
        }
        return name.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c));
    }

    public Source source() {
        return source;
    }

    /** The server the members were learned from (the lone server itself); empty when given. */
    public Optional<String> learnedFrom() {
        return Optional.ofNullable(learnedFrom);
    }

    /** Every named member, sorted: the servers a push waits for. */
    public Set<String> names() {
        return names;
    }

    /** The named members the meta group reported offline when they were learned (informational). */
    public Set<String> offline() {
        return offline;
    }

    /**
     * Meta-group peers no live server could name (down since the cluster last restarted), by peer
     * id: missing from every push until they are back and the members are learned again.
     */
    public Set<String> unnamedPeers() {
        return unnamedPeers;
    }

    /** How a push reports the unnamed member {@code peerId} among the missing. */
    static String unnamedLabel(String peerId) {
        return "peer " + peerId + " (name unknown)";
    }

    @Override
    public String toString() {
        return "ClusterMembers[" + source + (learnedFrom == null ? "" : " from " + learnedFrom) + ", names=" + names
                + (offline.isEmpty() ? "" : ", offline=" + offline)
                + (unnamedPeers.isEmpty() ? "" : ", unnamedPeers=" + unnamedPeers) + "]";
    }
}
