package ai.cotal.auth.service;

import ai.cotal.auth.internal.replica.ReplicaAuthority;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callout-replica lanes of one process (SPEC §13.19), shared by {@link CalloutReplica} (a fixed
 * set of spaces) and {@link CalloutHost} (a manifest's): a lane is a {@link ReplicaAuthority} and an
 * auth-callout responder in the space's queue group. A space is refused (named, reported, retried every
 * {@code retry}) when its service-endpoint admission is open, its ledger directory is missing, or
 * its lane cannot start; a lane whose connections fail to renew leaves the queue group and is
 * retried the same way. A lane that is running never re-checks admission. Thread-safe: starting,
 * retiring and removing a lane run under this object's lock.
 */
final class ReplicaLanes implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaLanes.class);

    /** A running lane, with the remote signer's client it owns (null: the seed is in the store). */
    private record Lane(ReplicaAuthority authority, Runnable callout, RemoteSpaceSigner remote) {
        void close() {
            callout.run(); // the responder first: the other responders of the queue group answer
            authority.close();
            if (remote != null) {
                remote.close();
            }
        }
    }

    private final List<String> servers;
    private final SecretStore secrets;
    private final Duration ttl;
    private final Duration retry;
    private final Clock clock;
    private final BiConsumer<String, String> onRefusal;
    private final MeterSink meterSink; // null: nothing is measured
    private final Map<String, Path> stateDirs = new LinkedHashMap<>();
    /** The spaces whose lanes sign through a remote signer, by its socket (SPEC §13.19). */
    private final Map<String, Path> signerSockets = new ConcurrentHashMap<>();
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private final Map<String, String> refused = new ConcurrentHashMap<>();
    private final ScheduledExecutorService retries;
    private boolean retrying;
    private volatile boolean closed;

    ReplicaLanes(List<String> servers, SecretStore secrets, Duration ttl, Duration retry, Clock clock,
            BiConsumer<String, String> onRefusal, MeterSink meterSink) {
        this.servers = List.copyOf(servers);
        this.secrets = secrets;
        this.ttl = ttl;
        this.retry = retry;
        this.clock = clock;
        this.onRefusal = onRefusal;
        this.meterSink = meterSink;
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cotal-callout-replica-retry");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Answers for {@code space} from the ledger in {@code stateDir}: starts its lane now, or
     * returns why it is refused (then it is retried every {@code retry} until it starts or is
     * removed).
     */
    synchronized String add(String space, Path stateDir) {
        return add(space, stateDir, null);
    }

    /** As {@link #add(String, Path)}, signing through the remote signer at {@code signerSocket} (null: the store's seed). */
    synchronized String add(String space, Path stateDir, Path signerSocket) {
        stateDirs.put(space, stateDir);
        if (signerSocket != null) {
            signerSockets.put(space, signerSocket);
        }
        String why = tryStart(space);
        if (why != null) {
            ensureRetrying();
        }
        return why;
    }

    /**
     * Stops answering for {@code space}: its lane, if any, has left the queue group on return. A
     * lane that fails to close throws and stays owned (closed again by the next remove or close).
     */
    synchronized void remove(String space) {
        Lane lane = lanes.get(space);
        if (lane != null) {
            lane.close();
            lanes.remove(space, lane);
            LOG.info("callout-replica: stopped answering for space {}", space);
        }
        stateDirs.remove(space);
        signerSockets.remove(space);
        refused.remove(space);
    }

    /** Starts one lane; returns null, or why the space is refused (recorded and reported). */
    private synchronized String tryStart(String space) {
        if (closed) {
            return "the replica is closed";
        }
        Path stateDir = stateDirs.get(space);
        if (stateDir == null || lanes.containsKey(space)) {
            return null; // removed while a retry was due, or already answering
        }
        String why;
        RemoteSpaceSigner remote = null;
        try {
            Path socket = signerSockets.get(space);
            if (socket != null) {
                remote = RemoteSpaceSigner.open(socket, space, "");
            }
            SpaceSigner signer = remote != null ? remote.signer() : ServiceMaterial.loadSigner(secrets, space);
            if (ServiceEndpointAdmission.admitsServiceEndpoints(space, servers, signer)) {
                why = "its service-endpoint admission is open and a replica cannot issue service-endpoint connections";
            } else if (!Files.isDirectory(stateDir)) {
                why = "its ledger directory " + stateDir + " is missing (a replica reads the plane's ledger)";
            } else {
                startLane(space, stateDir, remote);
                return null;
            }
        } catch (RuntimeException e) {
            why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        if (remote != null) {
            remote.close(); // refused: the lane that would own it did not start
        }
        refused.put(space, why);
        LOG.warn("callout-replica: space {} refused: {}", space, why);
        onRefusal.accept(space, why);
        return why;
    }

    /** Starts the lane, signing through {@code remote} (null: the store's seed). */
    private void startLane(String space, Path stateDir, RemoteSpaceSigner remote) {
        ServiceMaterial.Loaded material = ServiceMaterial.load(secrets, space, remote == null ? null : remote.signer());
        ReplicaAuthority authority = ReplicaAuthority.open(servers, material.signer(), stateDir, secrets, ttl, clock);
        try {
            Runnable callout = authority.answer(servers, material.callout(), material.signer(), clock, meterSink);
            Lane lane = new Lane(authority, callout, remote);
            lanes.put(space, lane);
            refused.remove(space);
            // a lane whose credentials stop renewing leaves the queue group and is retried
            authority.failure().thenAccept(failed -> retire(space, lane, failed));
            LOG.info("callout-replica: answering for space {}", space);
        } catch (RuntimeException e) {
            authority.close();
            throw e;
        }
    }

    /** Closes a lane whose authority failed and puts its space back on the retry list. */
    private synchronized void retire(String space, Lane failed, String why) {
        if (!lanes.remove(space, failed)) {
            return; // removed already, or replaced by a newer lane
        }
        failed.close();
        if (!closed && stateDirs.containsKey(space)) {
            refused.put(space, why);
            onRefusal.accept(space, why);
            ensureRetrying();
        }
    }

    private synchronized void ensureRetrying() {
        if (!retrying && !closed) {
            retrying = true;
            long every = retry.toMillis();
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
    Set<String> serving() {
        return Set.copyOf(lanes.keySet());
    }

    /** The refused spaces and why. */
    Map<String, String> refused() {
        return Map.copyOf(refused);
    }

    /** Closes every lane and stops retrying; under the lock, so no retry is starting a lane now, and none will. */
    @Override
    public synchronized void close() {
        closed = true;
        retries.shutdownNow();
        for (Lane lane : lanes.values()) {
            lane.close();
        }
        lanes.clear();
    }
}
