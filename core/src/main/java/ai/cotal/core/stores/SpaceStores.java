package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.LeaderGet;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.internal.kv.StreamInfos;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Creates, then verifies, every store of a space (SPEC §6, §6.1): {@link #setup} the whole space,
 * {@link #setupAuthority} the authority stores only. TTL buckets whose expiry drifted are
 * reconciled (§6.1). Idempotent: a store that
 * exists with the expected configuration is left alone. A store whose configuration drifted is
 * refused loudly and left exactly as it is, never adopted or updated, with one exception: a store
 * from before bounded stores, unbounded ({@code max_bytes -1}) and otherwise exactly as
 * expected, has its {@code max_bytes} tightened to the spec bound by a stream update (logged).
 * An operator's own bound (at least {@link StoreSpecs#MIN_OPERATOR_BYTES}) is kept. A store from
 * before fenced writes, {@code allow_atomic} false where true is expected and otherwise exact, has
 * exactly that field set by a stream update (logged). An issued or
 * accepted store from before bounded retention is refused with the recreation step. A broker
 * older than 2.12 is refused before anything is created. Stateless; the caller owns the
 * connection (a provisioner credential, or the plane's writer; both may update these streams).
 */
public final class SpaceStores {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SpaceStores.class);
    private static final int STREAM_NOT_FOUND = 10059;
    private static final int INSUFFICIENT_STORAGE = 10047;
    /**
     * "JetStream not enabled for account": what a member answers while it is still loading an
     * operator-mode account it has just registered (SPEC §6 Replicas); our data accounts always
     * have JetStream, so this is "not now", not a verdict.
     */
    private static final int ACCOUNT_LOADING = 10039;
    private static final int[] MINIMUM_BROKER = {2, 12};

    private SpaceStores() {
    }

    /**
     * Sets up the whole space (SPEC §6.1): the authority stores, then every message stream,
     * bucket, endpoint-plane stream and the artifact store. Creates what is missing, verifies
     * everything, reconciles the TTL buckets; returns the stream names, in creation order.
     */
    public static List<String> setup(Connection connection, String space) {
        return setup(connection, space, StoreReplicas.one());
    }

    /**
     * {@link #setup(Connection, String)} with every store at {@code replicas} replicas (SPEC §6):
     * created so when absent; an existing store with another replica count is drift, refused
     * with the edit that fixes it, and left as it is.
     */
    public static List<String> setup(Connection connection, String space, StoreReplicas replicas) {
        SpaceName.of(space, "space");
        int count = checkedReplicas(connection, replicas);
        JetStreamManagement jsm = management(connection);
        List<String> names = new ArrayList<>(ensure(connection, jsm, StoreSpecs.authority(space, count), false, space));
        names.addAll(ensure(connection, jsm, StoreSpecs.withReplicas(SpaceStreamSpecs.all(space), count), true, space));
        return names;
    }

    /**
     * Sets up the authority stores only (SPEC §6): what the plane's writer may create and update.
     * Creates what is missing, verifies everything; returns the stream names, in creation order.
     */
    public static List<String> setupAuthority(Connection connection, String space) {
        return setupAuthority(connection, space, StoreReplicas.one());
    }

    /** {@link #setupAuthority(Connection, String)} with every authority store at {@code replicas} replicas. */
    public static List<String> setupAuthority(Connection connection, String space, StoreReplicas replicas) {
        SpaceName.of(space, "space");
        int count = checkedReplicas(connection, replicas);
        return ensure(connection, management(connection), StoreSpecs.authority(space, count), false, space);
    }

    /**
     * The deliberate replica change (SPEC §6): sets exactly {@code num_replicas} of every existing
     * store of {@code space} to {@code replicas} (one stream update each, logged), the SDK form of
     * {@code nats stream edit <stream> --replicas <n>}; a store already at that count, or absent,
     * is not touched. Returns the streams it changed. The broker moves the data to the new peers.
     */
    public static List<String> changeReplicas(Connection connection, String space, StoreReplicas replicas) {
        SpaceName.of(space, "space");
        int count = checkedReplicas(connection, replicas);
        JetStreamManagement jsm = management(connection);
        List<String> changed = new ArrayList<>();
        List<StreamConfiguration> every = new ArrayList<>(StoreSpecs.authority(space));
        every.addAll(SpaceStreamSpecs.all(space));
        for (StreamConfiguration spec : every) {
            Optional<StreamConfiguration> live = info(jsm, spec.getName()).map(StreamInfo::getConfiguration);
            if (live.isEmpty() || live.get().getReplicas() == count) {
                continue;
            }
            try {
                jsm.updateStream(StoreSpecs.withReplicas(live.get(), count));
            } catch (JetStreamApiException e) {
                throw apiFailure("change the replicas of " + spec.getName() + " to " + count, e);
            } catch (IOException e) {
                throw unavailable("change the replicas of " + spec.getName(), e);
            }
            LOG.info("space-stores: {} replicas {} -> {} (SPEC §6)", spec.getName(), live.get().getReplicas(), count);
            changed.add(spec.getName());
        }
        return changed;
    }

    private static int checkedReplicas(Connection connection, StoreReplicas replicas) {
        Objects.requireNonNull(replicas, "replicas");
        requireBroker(connection);
        return replicas.resolve(connection);
    }

    /**
     * Reads every spec's live configuration (the infos sent together), creates what is missing,
     * bounds, reconciles ({@code reconcileTtl}: over {@code connection} as the TTL canary) and
     * verifies, one spec after the other.
     */
    private static List<String> ensure(Connection connection, JetStreamManagement jsm, List<StreamConfiguration> specs,
            boolean reconcileTtl, String space) {
        List<String> names = new ArrayList<>();
        StreamInfos infos = StreamInfos.send(connection, specs.stream().map(StreamConfiguration::getName).toList(),
                connection.getOptions().getConnectionTimeout());
        Connection ttlCanary = reconcileTtl ? connection : null;
        for (StreamConfiguration expected : specs) {
            StreamConfiguration live = sent(infos, expected.getName())
                    .map(StreamInfo::getConfiguration)
                    .orElseGet(() -> create(jsm, expected));
            if (StoreDrift.onlyAtomic(expected, live)) {
                live = allowAtomic(jsm, expected, live);
            }
            if (StoreDrift.onlyUnbounded(expected, live)) {
                live = bound(jsm, expected, live);
            }
            if (ttlCanary != null && SpaceStreamSpecs.ttlBucket(expected.getName(), space)
                    && TtlReconcile.onlyTtl(expected, live)) {
                live = TtlReconcile.reconcile(ttlCanary, jsm, expected, live);
            }
            verify(expected, live);
            names.add(expected.getName());
        }
        return names;
    }

    /** Refuses unless {@code stream}'s live configuration is exactly {@code expected}. */
    static void verify(StreamConfiguration expected, StreamConfiguration live) {
        List<String> differences = StoreDrift.differences(expected, live);
        if (differences.isEmpty()) {
            return;
        }
        if (IssuedStores.predatesBoundedRetention(expected, live)) {
            throw new IssuedStoreRetentionRefusal(expected.getName());
        }
        String replicaFix = expected.getReplicas() == live.getReplicas() ? "" : "; to change its replicas run `nats stream"
                + " edit " + expected.getName() + " --replicas " + expected.getReplicas() + "` or SpaceStores.changeReplicas("
                + "connection, space, StoreReplicas.of(" + expected.getReplicas() + "))";
        throw CotalException.failedPrecondition("store " + expected.getName() + " exists with another configuration ("
                + String.join("; ", differences) + "); it is refused, not adopted: restore the expected configuration"
                + " or remove the store deliberately" + replicaFix);
    }

    /** Tightens exactly {@code max_bytes} of an unbounded store to the spec bound; nothing else changes. */
    private static StreamConfiguration bound(JetStreamManagement jsm, StreamConfiguration expected, StreamConfiguration live) {
        try {
            StreamConfiguration updated = jsm.updateStream(StreamConfiguration.builder(live)
                    .maxBytes(expected.getMaxBytes()).build()).getConfiguration();
            LOG.info("space-stores: bounded {}: max_bytes -1 -> {} (SPEC §6)", expected.getName(), expected.getMaxBytes());
            return updated;
        } catch (JetStreamApiException e) {
            throw apiFailure("bound " + expected.getName() + " to max_bytes " + expected.getMaxBytes(), e);
        } catch (IOException e) {
            throw unavailable("bound " + expected.getName(), e);
        }
    }

    /** Sets exactly {@code allow_atomic} of a store from before fenced writes (SPEC §13.13); nothing else changes. */
    private static StreamConfiguration allowAtomic(JetStreamManagement jsm, StreamConfiguration expected,
            StreamConfiguration live) {
        try {
            StreamConfiguration updated = jsm.updateStream(StreamConfiguration.builder(live).allowAtomicPublish(true)
                    .build()).getConfiguration();
            LOG.info("space-stores: {} allow_atomic false -> true (SPEC §13.13)", expected.getName());
            return updated;
        } catch (JetStreamApiException e) {
            throw apiFailure("allow atomic publish on " + expected.getName(), e);
        } catch (IOException e) {
            throw unavailable("allow atomic publish on " + expected.getName(), e);
        }
    }

    /** {@link #info}'s outcome for a stream whose info was sent with {@code infos}. */
    static Optional<StreamInfo> sent(StreamInfos infos, String stream) {
        try {
            return infos.awaitIfExists(stream);
        } catch (JetStreamApiException e) {
            throw apiFailure("read the configuration of " + stream, e);
        } catch (IOException e) {
            throw unavailable("read the configuration of " + stream, e);
        }
    }

    static Optional<StreamInfo> info(JetStreamManagement jsm, String stream) {
        try {
            return Optional.of(jsm.getStreamInfo(stream));
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
                return Optional.empty();
            }
            throw apiFailure("read the configuration of " + stream, e);
        } catch (IOException e) {
            throw unavailable("read the configuration of " + stream, e);
        }
    }

    private static StreamConfiguration create(JetStreamManagement jsm, StreamConfiguration expected) {
        try {
            return jsm.addStream(expected).getConfiguration();
        } catch (JetStreamApiException e) {
            // Created by someone else between our read and our create: verify what is there now.
            return info(jsm, expected.getName()).map(StreamInfo::getConfiguration)
                    .orElseThrow(() -> apiFailure("create " + expected.getName(), e));
        } catch (IOException e) {
            throw unavailable("create " + expected.getName(), e);
        }
    }

    static JetStreamManagement management(Connection connection) {
        try {
            return connection.jetStreamManagement();
        } catch (IOException e) {
            throw unavailable("open JetStream management", e);
        }
    }

    /** Refuses a broker older than 2.12 (KV message TTL and the store flags need it). */
    static void requireBroker(Connection connection) {
        requireBroker(connection.getServerInfo().getVersion());
    }

    static void requireBroker(String version) {
        String[] parts = version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            if (major > MINIMUM_BROKER[0] || (major == MINIMUM_BROKER[0] && minor >= MINIMUM_BROKER[1])) {
                return;
            }
        } catch (RuntimeException e) {
            // Unparseable versions are refused below.
        }
        throw CotalException.failedPrecondition("nats-server " + version + " is too old for the space stores: 2.12 or"
                + " newer is required");
    }

    static CotalException apiFailure(String what, JetStreamApiException e) {
        ErrorCode code = e.getApiErrorCode() == 10003 || e.getErrorCode() == 403 ? ErrorCode.PERMISSION_DENIED
                : LeaderGet.unavailable(e) || e.getApiErrorCode() == ACCOUNT_LOADING ? ErrorCode.UNAVAILABLE
                : ErrorCode.FAILED_PRECONDITION;
        String hint = e.getApiErrorCode() == INSUFFICIENT_STORAGE ? ": the broker reserves every store's max_bytes in"
                + " its max_file_store; raise max_file_store or give the space's stores smaller bounds (SPEC §6)" : "";
        return new CotalException(code, "cannot " + what + ": the broker answered " + e.getApiErrorCode() + " ("
                + e.getErrorDescription() + ")" + hint, e);
    }

    static CotalException unavailable(String what, IOException e) {
        return new CotalException(ErrorCode.UNAVAILABLE, "cannot " + what + ": " + e.getMessage(), e);
    }
}
