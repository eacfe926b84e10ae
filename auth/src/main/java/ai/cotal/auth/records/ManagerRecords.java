package ai.cotal.auth.records;

import ai.cotal.auth.internal.manager.ServingDocuments;
import ai.cotal.auth.internal.manager.ServingRecords;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import java.util.List;

/**
 * The records a manager writes with its registrar credential (SPEC §14.2, §14.3), in their one
 * canonical form: its service spec, its status, and its contract artifacts (a cluster manifest
 * and the cluster root it names), with their keys in the space's records store
 * ({@code cotal_records_<token>}) and the content digests the reader verifies. Every builder
 * refuses bad input with {@code bad-request} naming the field. Stateless.
 */
public final class ManagerRecords {
    /** The urn of the manager cluster's root document. */
    public static final String MANAGER_URN = "ai.cotal.manager";

    private ManagerRecords() {
    }

    /** {@code svc.manager.<instanceId>.spec}. */
    public static String specKey(String instanceId) {
        return ServingRecords.specKey("manager", instance(instanceId));
    }

    /** {@code svc.manager.<instanceId>.status}. */
    public static String statusKey(String instanceId) {
        return ServingRecords.statusKey(instance(instanceId));
    }

    /** {@code svc.manager.<instanceId>.artifact.<hex>}: where the artifact of {@code digest} is stored. */
    public static String artifactKey(String instanceId, String digest) {
        ServingDocuments.requireDigests(List.of(String.valueOf(digest)), 1, 1, "digest");
        return ServingRecords.artifactKey(instance(instanceId), digest);
    }

    /** {@code sha256:} + the lowercase hex SHA-256 of an artifact's bytes: its key and its proof. */
    public static String digest(byte[] artifact) {
        return ServingDocuments.digest(artifact);
    }

    /**
     * The spec {@code {v: 1, endpoint: "manager", instanceId, owner, actor, clusterDigests}}; its KV
     * revision is the registration revision the plane opens the gate at.
     */
    public static byte[] spec(String owner, String actor, String instanceId, List<String> clusterDigests) {
        if (!Owner.matches(owner)) {
            throw CotalException.badRequest("owner", "must be u_ and 26 of [a-z2-7]");
        }
        if (actor == null || !Actor.matches(actor)) {
            throw CotalException.badRequest("actor", "must be 1 to 64 of [A-Za-z0-9_]");
        }
        ServingDocuments.requireDigests(clusterDigests, 1, 16, "clusterDigests");
        return ServingDocuments.write(new ServingDocuments.ManagerSpec(1, "manager", instance(instanceId), owner, actor,
                List.copyOf(clusterDigests)));
    }

    /** The status {@code {v: 1, instanceId, observedSpecRevision, epoch}} a manager publishes once its gate opened. */
    public static byte[] status(String instanceId, long observedSpecRevision, long epoch) {
        if (!ServingDocuments.counter(observedSpecRevision)) {
            throw CotalException.badRequest("observedSpecRevision", "must be 1 to 2^53-1");
        }
        if (!ServingDocuments.counter(epoch)) {
            throw CotalException.badRequest("epoch", "must be 1 to 2^53-1");
        }
        return ServingDocuments.write(new ServingDocuments.ManagerStatus(1, instance(instanceId), observedSpecRevision,
                epoch));
    }

    /** A cluster manifest {@code {v: 1, kind: "cluster-manifest", root, artifacts}}. */
    public static byte[] manifest(String rootDigest, List<String> artifacts) {
        ServingDocuments.requireDigests(List.of(String.valueOf(rootDigest)), 1, 1, "root");
        ServingDocuments.requireDigests(artifacts, 0, 64, "artifacts");
        return ServingDocuments.write(new ServingDocuments.Manifest(1, "cluster-manifest", rootDigest,
                List.copyOf(artifacts)));
    }

    /** A cluster root {@code {v: 1, kind: "cluster-root", urn, commands}}. */
    public static byte[] root(String urn, List<String> commands) {
        ServingDocuments.requireRoot(urn, commands);
        return ServingDocuments.write(new ServingDocuments.Root(1, "cluster-root", urn, List.copyOf(commands)));
    }

    /** {@code svc.manager.<instanceId>.session.<sessionId>} (SPEC §14.5). */
    public static String sessionKey(String instanceId, String sessionId) {
        return ServingRecords.sessionKey(instance(instanceId), session(sessionId));
    }

    /** The grant a {@code session-caller} bearer names: {@code <instanceId>.<sessionId>}. */
    public static String sessionGrant(String instanceId, String sessionId) {
        return instance(instanceId) + "." + session(sessionId);
    }

    /**
     * A session {@code {v: 1, sessionId, instanceId, owner, caller, commands, state, expiresAt}}
     * (SPEC §14.5): the manager of {@code owner} lets {@code caller} ({@code <owner>.<actor>}) call
     * {@code commands} until {@code expiresAt} (unix seconds), unless {@code revoked}.
     */
    public static byte[] session(String instanceId, String sessionId, String owner, String caller, List<String> commands,
            boolean revoked, long expiresAt) {
        if (!Owner.matches(owner)) {
            throw CotalException.badRequest("owner", "must be u_ and 26 of [a-z2-7]");
        }
        if (!ServingDocuments.caller(caller)) {
            throw CotalException.badRequest("caller", "must be <owner>.<actor>");
        }
        ServingDocuments.requireCommands(commands);
        if (!ServingDocuments.counter(expiresAt)) {
            throw CotalException.badRequest("expiresAt", "must be 1 to 2^53-1 (unix seconds)");
        }
        return ServingDocuments.write(new ServingDocuments.Session(1, session(sessionId), instance(instanceId), owner, caller,
                List.copyOf(commands), revoked ? "revoked" : "active", expiresAt));
    }

    private static String session(String sessionId) {
        if (sessionId == null || !InstanceId.matches(sessionId)) {
            throw CotalException.badRequest("sessionId", "must be 26 to 32 of [a-z0-9]");
        }
        return sessionId;
    }

    private static String instance(String instanceId) {
        if (instanceId == null || !InstanceId.matches(instanceId)) {
            throw CotalException.badRequest("instanceId", "must be 26 to 32 of [a-z0-9]");
        }
        return instanceId;
    }
}
