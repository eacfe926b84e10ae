package ai.cotal.auth;

import ai.cotal.auth.records.ManagerRecords;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A test-side manager (SPEC §14.4): with its own registrar credential it writes its contract
 * artifacts and its service spec and publishes its status, as a real manager would; the gate is
 * opened by the plane ({@code managers().openGate}). The manager is not part of the SDK.
 */
public final class TestManager implements AutoCloseable {
    public final AuthAuthorityPlane plane;
    public final String owner;
    public final String actor;
    public final String instanceId;
    private final Connection connection;
    private final JetStream js;
    private final String bucket;

    private TestManager(AuthAuthorityPlane plane, NatsBroker nats, String owner, String actor, String instanceId) {
        this.plane = plane;
        this.owner = owner;
        this.actor = actor;
        this.instanceId = instanceId;
        Creds creds = plane.managers().registrarCredential(Principal.of(owner, actor), new InstanceId(instanceId), Duration.ofMinutes(10));
        this.connection = NatsConnector.builder().server(nats.url()).creds(creds).label("test-manager").build().connect();
        this.bucket = "cotal_records_" + plane.space();
        try {
            this.js = connection.jetStream();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A manager with its registrar connection; {@code actor} must hold a ledger row of {@code owner}. */
    public static TestManager of(AuthAuthorityPlane plane, NatsBroker nats, String owner, String actor, String instanceId) {
        return new TestManager(plane, nats, owner, actor, instanceId);
    }

    /** Registers (artifacts, spec), has the plane open the gate and publishes its status: a candidate. */
    public static TestManager candidate(AuthAuthorityPlane plane, NatsBroker nats, String owner, String actor,
            String instanceId) throws Exception {
        TestManager manager = of(plane, nats, owner, actor, instanceId);
        long revision = manager.spec(List.of(manager.managerCluster()));
        ServingGate gate = plane.managers().openGate(Principal.of(owner, actor), new InstanceId(instanceId));
        manager.status(revision, gate.processEpoch());
        return manager;
    }

    /**
     * Grants {@code owner}'s actor {@code mgr} and registers a candidate manager for it (an instance
     * id derived from the owner): what a manager-caller connect of that owner needs (SPEC §14.4).
     */
    public static TestManager forOwner(AuthAuthorityPlane plane, NatsBroker nats, String owner) throws Exception {
        plane.ledger().grantActor(Principal.of(owner, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
        String instanceId = ManagerRecords.digest(owner.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .substring("sha256:".length(), "sha256:".length() + 26);
        return candidate(plane, nats, owner, "mgr", instanceId);
    }

    /** A candidate whose manager cluster declares {@code commands} (SPEC §14.7: run-start, run-resume, run-answer). */
    public static TestManager candidate(AuthAuthorityPlane plane, NatsBroker nats, String owner, String actor,
            String instanceId, List<String> commands) throws Exception {
        TestManager manager = of(plane, nats, owner, actor, instanceId);
        String root = manager.artifact(ManagerRecords.root(ManagerRecords.MANAGER_URN, commands));
        long revision = manager.spec(List.of(manager.artifact(ManagerRecords.manifest(root, List.of()))));
        ServingGate gate = plane.managers().openGate(Principal.of(owner, actor), new InstanceId(instanceId));
        manager.status(revision, gate.processEpoch());
        return manager;
    }

    /** Writes a manager cluster (root, then manifest) and answers the manifest's digest. */
    public String managerCluster() throws Exception {
        return cluster(ManagerRecords.MANAGER_URN);
    }

    /** Writes a cluster of {@code urn} (root, a member, then manifest) and answers the manifest's digest. */
    public String cluster(String urn) throws Exception {
        String root = artifact(ManagerRecords.root(urn, List.of("spawn", "status")));
        String member = artifact(("{\"v\":1,\"kind\":\"schema\",\"of\":\"" + urn + "\"}").getBytes());
        return artifact(ManagerRecords.manifest(root, List.of(member)));
    }

    /** Stores an artifact under its own digest. */
    public String artifact(byte[] bytes) throws Exception {
        String digest = ManagerRecords.digest(bytes);
        put(ManagerRecords.artifactKey(instanceId, digest), bytes);
        return digest;
    }

    /** Stores {@code bytes} under the key of {@code digest} (a tampered or mis-keyed artifact). */
    public void artifactAt(String digest, byte[] bytes) throws Exception {
        put(ManagerRecords.artifactKey(instanceId, digest), bytes);
    }

    /** Writes the spec; answers its revision (the registration revision). */
    public long spec(List<String> clusterDigests) throws Exception {
        return specOf(owner, clusterDigests);
    }

    /** Writes a spec naming {@code specOwner}; answers its revision. */
    public long specOf(String specOwner, List<String> clusterDigests) throws Exception {
        return put(ManagerRecords.specKey(instanceId), ManagerRecords.spec(specOwner, actor, instanceId,
                new ArrayList<>(clusterDigests)));
    }

    /** Publishes the status {@code {observedSpecRevision, epoch}}. */
    public void status(long observedSpecRevision, long epoch) throws Exception {
        put(ManagerRecords.statusKey(instanceId), ManagerRecords.status(instanceId, observedSpecRevision, epoch));
    }

    /** A raw publish to a key of the records store with the registrar credential; the revision. */
    public long put(String key, byte[] bytes) throws Exception {
        return js.publish("$KV." + bucket + "." + key, bytes, PublishOptions.builder().build()).getSeqno();
    }

    public Connection connection() {
        return connection;
    }

    @Override
    public void close() throws InterruptedException {
        connection.close();
    }
}
