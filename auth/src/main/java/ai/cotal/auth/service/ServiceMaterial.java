package ai.cotal.auth.service;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.internal.secrets.IssuerKey;
import ai.cotal.auth.internal.secrets.ServiceDocuments;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.workspace.SecretKeys;
import java.util.Optional;

/**
 * The stock service's signing material in the {@link SecretStore} (SPEC §13.18), as
 * {@link SpaceProvisioning} wrote it: the data account's signer ({@code service-keys}: the only
 * signing material the service holds; operator and account seeds never enter it) and the space's
 * callout account ({@code callout}). Loading reports every missing secret at once, before any
 * connection, and never creates one.
 */
public final class ServiceMaterial {
    private ServiceMaterial() {
    }

    /** What a service of one space loads. Never printed: {@code toString()} shows public keys. */
    public record Loaded(SpaceSigner signer, CalloutAuth callout) {
        @Override
        public String toString() {
            return "ServiceMaterial[" + signer.accountPublicKey() + ", callout " + callout.accountPublicKey() + "]";
        }
    }

    /**
     * What a plane serving {@code space} as the stock service needs from {@code store}
     * ({@link SpaceProvisioning.Role#SERVICE}, or {@link SpaceProvisioning.Role#SERVICE_WITH_REMOTE_SIGNER}
     * when {@code remote} is given): the data account's signer ({@code remote} or the service keys)
     * and the callout account, for {@link AuthPlaneOptions.Builder#signer} and
     * {@link AuthPlaneOptions.Builder#callout}. Every missing secret is named at once
     * ({@code failed-precondition}), before any connection.
     */
    public static Loaded forService(SecretStore store, String space, SpaceSigner remote) {
        SpaceProvisioning.require(store, space, remote == null ? SpaceProvisioning.Role.SERVICE
                : SpaceProvisioning.Role.SERVICE_WITH_REMOTE_SIGNER);
        return load(store, space, remote);
    }

    /** The data account's signer alone ({@code service-keys}); missing is {@code failed-precondition}. */
    public static SpaceSigner loadSigner(SecretStore store, String space) {
        byte[] keys = store.get(SecretKeys.serviceKeysKey(space)).orElseThrow(() -> new CotalException(
                ErrorCode.FAILED_PRECONDITION, "the service keys of space \"" + space + "\" are missing: the secret store"
                + " lacks " + SecretKeys.serviceKeysKey(space)));
        return ServiceDocuments.readSigner(space, keys);
    }

    /**
     * Loads what a callout replica of {@code space} needs ({@link SpaceProvisioning.Role#REPLICA}):
     * the service keys, the callout material and the bearer issuer's key (no owner secret: a replica
     * derives no owner, its bearers carry them). A
     * missing one is {@code failed-precondition} naming every missing key at once (SPEC §13.18).
     */
    public static Loaded load(SecretStore store, String space) {
        return load(store, space, null);
    }

    /**
     * As {@link #load(SecretStore, String)}, with the data account's signer given ({@code remote},
     * a remote signer, SPEC §16.4) instead of read ({@link SpaceProvisioning.Role#REPLICA_WITH_REMOTE_SIGNER}):
     * then {@code service-keys.json} is not needed, and its presence is {@code failed-precondition}
     * (the seed must live only with the signer). A null {@code remote} reads it.
     */
    public static Loaded load(SecretStore store, String space, SpaceSigner remote) {
        if (remote != null && store.get(SecretKeys.serviceKeysKey(space)).isPresent()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: holds " + SecretKeys.serviceKeysKey(space)
                    + " (the data account's signing seed) while a remote signer is set; move it to the signer's store");
        }
        SpaceProvisioning.require(store, space, remote == null ? SpaceProvisioning.Role.REPLICA
                : SpaceProvisioning.Role.REPLICA_WITH_REMOTE_SIGNER);
        IssuerKey.load(store, space, BearerClaims.issuerOf(space)); // its issuer must be urn:cotal:auth:<space>
        SpaceSigner signer = remote != null ? remote : loadSigner(store, space);
        Optional<byte[]> callout = store.get(SecretKeys.calloutKey(space));
        return new Loaded(signer, ServiceDocuments.readCallout(space, callout.orElseThrow(() -> new CotalException(
                ErrorCode.FAILED_PRECONDITION, "the secret store lacks " + SecretKeys.calloutKey(space)))));
    }
}
