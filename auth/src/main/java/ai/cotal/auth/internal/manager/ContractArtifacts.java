package ai.cotal.auth.internal.manager;

import ai.cotal.auth.ManagerAuthority.ManagerCluster;
import ai.cotal.auth.internal.manager.ServingDocuments.ManagerSpec;
import ai.cotal.auth.internal.manager.ServingDocuments.Manifest;
import ai.cotal.auth.internal.manager.ServingDocuments.Root;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Optional;

/**
 * The contract artifact reader and {@code registeredManagerCluster} (SPEC §14.3): every artifact is
 * read from the key its digest names and hashed before it is believed; the manager's surface comes
 * from the spec registered at the gate's registration revision, never from a request. Thread-safe.
 */
final class ContractArtifacts {
    static final String MANAGER_URN = "ai.cotal.manager";

    private final ServingRecords records;

    ContractArtifacts(ServingRecords records) {
        this.records = records;
    }

    /** The artifact {@code digest} names, verified; refused {@code failed-precondition} naming the digest. */
    byte[] read(String instanceId, String digest) {
        byte[] bytes = records.artifact(instanceId, digest).orElseThrow(() -> new CotalException(
                ErrorCode.FAILED_PRECONDITION, "cannot read registered manager contract artifact " + digest));
        if (!ServingDocuments.digest(bytes).equals(digest)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "registered manager contract artifact " + digest
                    + " does not match its digest");
        }
        return bytes;
    }

    ManagerCluster registeredManagerCluster(String owner, String instanceId, long registrationRevision) {
        Optional<ServingRecords.Stored<ManagerSpec>> spec = records.managerSpec(instanceId);
        if (spec.isEmpty() || spec.get().revision() != registrationRevision) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION,
                    "found no manager service spec at the gate's registration revision");
        }
        return cluster(owner, instanceId, spec.get().value());
    }

    /** Steps 2 to 4 of SPEC §14.3 over a spec already read. */
    ManagerCluster cluster(String owner, String instanceId, ManagerSpec spec) {
        if (!spec.owner().equals(owner)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the manager service spec belongs to another owner");
        }
        for (String manifestDigest : spec.clusterDigests()) {
            Manifest manifest = ServingDocuments.manifest(read(instanceId, manifestDigest));
            if (manifest == null) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "registered manager contract artifact "
                        + manifestDigest + " is not a cluster manifest");
            }
            Root root = ServingDocuments.root(read(instanceId, manifest.root()));
            if (root == null) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "registered manager contract artifact "
                        + manifest.root() + " is not a cluster root");
            }
            for (String member : manifest.artifacts()) {
                read(instanceId, member);
            }
            if (root.urn().equals(MANAGER_URN)) {
                return new ManagerCluster(root.urn(), root.commands(), manifestDigest, manifest.root());
            }
        }
        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the manager service spec registers no manager cluster");
    }
}
