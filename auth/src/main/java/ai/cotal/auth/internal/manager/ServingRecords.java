package ai.cotal.auth.internal.manager;

import ai.cotal.auth.ServingGate;
import ai.cotal.auth.internal.manager.ServingDocuments.ManagerSpec;
import ai.cotal.auth.internal.manager.ServingDocuments.ManagerStatus;
import ai.cotal.core.internal.kv.FencedWrite;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.Connection;
import java.util.Optional;

/**
 * The serving records of SPEC §14.2 as the plane reads and writes them: gates in the auth store on
 * the writer connection (their only writer; create-only or CAS, fenced writes, SPEC §13.13), specs, statuses and artifacts in
 * the records store through leader reads on the reader connection, and the plane's own spec
 * written create-only by the writer, fenced as well. A delete or purge marker where a row belongs is
 * {@code data-loss}. Thread-safe.
 */
public final class ServingRecords {
    /** A row as read, with its revision. */
    public record Stored<T>(T value, long revision) {
    }

    private final RowStore gates;
    private final RowStore records;
    /** The gates' and the plane's own spec's writes: fenced writes of the auth and records stores (SPEC §13.13). */
    private final FencedWrite gateWrites;
    private final FencedWrite ownSpec;

    /**
     * Over the plane's writer (gates, its own spec, through {@code gateWrites} and {@code specWrites})
     * and reader (records reads) connections.
     */
    public ServingRecords(String space, Connection writer, Connection reader, FencedWrite gateWrites,
            FencedWrite specWrites) {
        this.gates = new RowStore(writer, StoreNames.bucket("auth", space));
        this.records = new RowStore(reader, StoreNames.bucket("records", space));
        this.gateWrites = gateWrites;
        this.ownSpec = specWrites;
    }

    static String gateKey(String endpoint, String instanceId) {
        return "gate." + endpoint + "." + instanceId;
    }

    public static String specKey(String endpoint, String instanceId) {
        return "svc." + endpoint + "." + instanceId + ".spec";
    }

    public static String statusKey(String instanceId) {
        return "svc.manager." + instanceId + ".status";
    }

    /** {@code svc.manager.<iid>.artifact.<hex>} for a {@code sha256:<hex>} digest. */
    public static String artifactKey(String instanceId, String digest) {
        return "svc.manager." + instanceId + ".artifact." + digest.substring("sha256:".length());
    }

    public Optional<ServingGate> gate(String endpoint, String instanceId) {
        return gates.last(gateKey(endpoint, instanceId)).map(r -> ServingDocuments.parseGate(endpoint, instanceId,
                r.data(), r.revision()));
    }

    /** Creates the gate; its revision, or empty when the key is taken. */
    public Optional<Long> createGate(ServingGate gate) {
        return gateWrites.createRow(gateKey(gate.endpoint(), gate.instanceId()), ServingDocuments.write(gate));
    }

    /** Replaces the gate at {@code revision}; the new revision, or empty when it moved. */
    public Optional<Long> replaceGate(ServingGate gate, long revision) {
        return gateWrites.compareAndSetRow(gateKey(gate.endpoint(), gate.instanceId()), ServingDocuments.write(gate), revision);
    }

    Optional<Stored<byte[]>> authSpec(String instanceId) {
        return records.last(specKey("auth", instanceId)).map(r -> new Stored<>(r.data(), r.revision()));
    }

    Optional<Long> createAuthSpec(String instanceId, byte[] data) {
        return ownSpec.createRow(specKey("auth", instanceId), data);
    }

    public Optional<Stored<ManagerSpec>> managerSpec(String instanceId) {
        return records.last(specKey("manager", instanceId)).map(r -> new Stored<>(
                ServingDocuments.parseManagerSpec(instanceId, r.data()), r.revision()));
    }

    /** {@code svc.manager.<iid>.session.<sid>}. */
    public static String sessionKey(String instanceId, String sessionId) {
        return "svc.manager." + instanceId + ".session." + sessionId;
    }

    /** The session row (SPEC §14.5), leader read; empty when absent, {@code data-loss} when corrupt. */
    public Optional<ServingDocuments.Session> session(String instanceId, String sessionId) {
        return records.last(sessionKey(instanceId, sessionId)).map(r -> ServingDocuments.parseSession(instanceId,
                sessionId, r.data()));
    }

    public Optional<ManagerStatus> managerStatus(String instanceId) {
        return records.last(statusKey(instanceId)).map(r -> ServingDocuments.parseManagerStatus(instanceId, r.data()));
    }

    /** The bytes stored under an artifact's key, unverified; empty when absent. */
    Optional<byte[]> artifact(String instanceId, String digest) {
        return records.last(artifactKey(instanceId, digest)).map(RowStore.Row::data);
    }
}
