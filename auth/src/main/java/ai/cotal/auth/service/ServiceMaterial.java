package ai.cotal.auth.service;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerIssuer;
import ai.cotal.auth.internal.plane.OwnerSecret;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.keys.XKeyPair;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.workspace.SecretKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The stock service's signing material in the {@link SecretStore} (SPEC §13.18): the data
 * account's signer ({@code service-keys}: the only signing material the service holds; operator
 * and account seeds never enter it) and the space's callout account ({@code callout}). Closed JSON
 * with {@code ver: 1}. Loading reports every missing kind at once, before any connection.
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

    private record ServiceKeys(Integer ver, DataAccount dataAccount) {
        @Override
        public String toString() {
            return "ServiceKeys[" + (dataAccount == null ? null : dataAccount.pub()) + "]";
        }
    }

    private record DataAccount(String pub, String signingSeed) {
        @Override
        public String toString() {
            return "DataAccount[" + pub + "]";
        }
    }

    private record Callout(Integer ver, String accountSeed, String signingSeed, String jwt, String calloutCreds,
            String sentinelCreds, String xkeySeed) {
        @Override
        public String toString() {
            return "Callout[...]";
        }
    }

    /**
     * Provisions a space's service: writes the service keys (the data account's public key and
     * its signing seed, from {@code account}, the material that holds it) and the callout material
     * (replacing what is there), then creates the bearer issuer's key and the owner secret
     * create-only ({@link AuthAuthorityPlane#provisionKeys}: kept exactly as they are when present).
     */
    public static void store(SecretStore store, SpaceAccountAuth account, CalloutAuth callout) {
        if (!account.space().equals(callout.space())) {
            throw CotalException.badRequest("callout", "belongs to space '" + callout.space() + "', not '"
                    + account.space() + "'");
        }
        store.put(SecretKeys.serviceKeysKey(account.space()), ClosedJson.write(ClosedJson.cotal(), new ServiceKeys(1,
                new DataAccount(account.accountPublicKey(), account.signing().seed()))));
        store.put(SecretKeys.calloutKey(account.space()), ClosedJson.write(ClosedJson.cotal(), new Callout(1,
                callout.account().seed(), callout.signing().seed(), callout.jwt(), callout.calloutCreds().text(),
                callout.sentinelCreds().text(), callout.xkey().seed())));
        AuthAuthorityPlane.provisionKeys(store, account.space());
    }

    /** The data account's signer alone ({@code service-keys}); missing is {@code failed-precondition}. */
    public static SpaceSigner loadSigner(SecretStore store, String space) {
        byte[] keys = store.get(SecretKeys.serviceKeysKey(space)).orElseThrow(() -> new CotalException(
                ErrorCode.FAILED_PRECONDITION, "the service keys of space \"" + space + "\" are missing: the secret store"
                + " lacks " + SecretKeys.serviceKeysKey(space)));
        return signer(space, keys);
    }

    private static SpaceSigner signer(String space, byte[] bytes) {
        ServiceKeys k = ClosedJson.read(ClosedJson.cotal(), bytes, ServiceKeys.class, "service-keys");
        if (k.ver() == null || k.ver() != 1 || k.dataAccount() == null) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the service keys of space \"" + space
                    + "\" have an unknown version or shape");
        }
        return new SpaceSigner(space, k.dataAccount().pub(), new InMemoryAccountSigner(NKeyPair.fromSeed(
                k.dataAccount().signingSeed(), KeyType.ACCOUNT, "service-keys.dataAccount.signingSeed")));
    }

    /**
     * Loads what the stock service of {@code space} needs: the service keys, the callout material,
     * the bearer issuer's key and the owner secret. A missing kind is {@code failed-precondition}
     * naming every missing key at once; nothing is ever created here (SPEC §13.18).
     */
    public static Loaded load(SecretStore store, String space) {
        return load(store, space, null);
    }

    /**
     * As {@link #load(SecretStore, String)}, with the data account's signer given ({@code remote},
     * a remote signer, SPEC §16.4) instead of read: then {@code service-keys.json} is not needed,
     * and its presence is {@code failed-precondition} (the seed must live only with the signer).
     * A null {@code remote} reads it.
     */
    public static Loaded load(SecretStore store, String space, SpaceSigner remote) {
        Optional<byte[]> keys = store.get(SecretKeys.serviceKeysKey(space));
        Optional<byte[]> callout = store.get(SecretKeys.calloutKey(space));
        if (remote != null && keys.isPresent()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: holds " + SecretKeys.serviceKeysKey(space)
                    + " (the data account's signing seed) while a remote signer is set; move it to the signer's store");
        }
        List<String> missing = new ArrayList<>();
        if (keys.isEmpty() && remote == null) {
            missing.add(SecretKeys.serviceKeysKey(space));
        }
        if (callout.isEmpty()) {
            missing.add(SecretKeys.calloutKey(space));
        }
        for (String key : List.of(SecretKeys.issuerKeysKey(space), SecretKeys.ownerSecretKey(space))) {
            if (store.get(key).isEmpty()) {
                missing.add(key);
            }
        }
        if (!missing.isEmpty()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the auth service of space \"" + space
                    + "\" is not provisioned: the secret store lacks " + String.join(", ", missing));
        }
        BearerIssuer.load(store, space, java.time.Clock.systemUTC()); // its issuer must be urn:cotal:auth:<space>
        OwnerSecret.load(store, space);
        SpaceSigner signer = remote != null ? remote : signer(space, keys.get());
        Callout c = ClosedJson.read(ClosedJson.cotal(), callout.get(), Callout.class, "callout");
        if (c.ver() == null || c.ver() != 1) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the callout material of space \"" + space
                    + "\" has an unknown version");
        }
        CalloutAuth auth = new CalloutAuth(space, NKeyPair.fromSeed(c.accountSeed(), KeyType.ACCOUNT, "callout.accountSeed"),
                NKeyPair.fromSeed(c.signingSeed(), KeyType.ACCOUNT, "callout.signingSeed"), c.jwt(),
                Creds.parse(c.calloutCreds()), Creds.parse(c.sentinelCreds()), XKeyPair.fromSeed(c.xkeySeed(),
                        "callout.xkeySeed"));
        return new Loaded(signer, auth);
    }
}
