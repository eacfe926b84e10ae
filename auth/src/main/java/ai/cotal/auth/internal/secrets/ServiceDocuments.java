package ai.cotal.auth.internal.secrets;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.keys.XKeyPair;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceSigner;

/**
 * The stock service's two documents (SPEC §13.18), closed JSON with {@code ver: 1}:
 * {@code service-keys.json} {@code {ver, dataAccount: {pub, signingSeed}}} and {@code callout.json}
 * {@code {ver, accountSeed, signingSeed, jwt, calloutCreds, sentinelCreds, xkeySeed}}. Written only
 * by provisioning, read by the service and the callout replicas.
 */
public final class ServiceDocuments {
    private ServiceDocuments() {
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

    /** The data account's public key and its signing seed. */
    public static byte[] serviceKeys(SpaceAccountAuth account) {
        return ClosedJson.write(ClosedJson.cotal(), new ServiceKeys(1, new DataAccount(account.accountPublicKey(),
                account.signing().seed())));
    }

    /** The callout account, its credentials and xkey. */
    public static byte[] callout(CalloutAuth callout) {
        return ClosedJson.write(ClosedJson.cotal(), new Callout(1, callout.account().seed(), callout.signing().seed(),
                callout.jwt(), callout.calloutCreds().text(), callout.sentinelCreds().text(), callout.xkey().seed()));
    }

    /** The data account's signer from {@code service-keys.json}; another version or shape is {@code data-loss}. */
    public static SpaceSigner readSigner(String space, byte[] bytes) {
        ServiceKeys k = ClosedJson.read(ClosedJson.cotal(), bytes, ServiceKeys.class, "service-keys");
        if (k.ver() == null || k.ver() != 1 || k.dataAccount() == null) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the service keys of space \"" + space
                    + "\" have an unknown version or shape");
        }
        return new SpaceSigner(space, k.dataAccount().pub(), new InMemoryAccountSigner(NKeyPair.fromSeed(
                k.dataAccount().signingSeed(), KeyType.ACCOUNT, "service-keys.dataAccount.signingSeed")));
    }

    /** The callout material from {@code callout.json}; another version is {@code data-loss}. */
    public static CalloutAuth readCallout(String space, byte[] bytes) {
        Callout c = ClosedJson.read(ClosedJson.cotal(), bytes, Callout.class, "callout");
        if (c.ver() == null || c.ver() != 1) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the callout material of space \"" + space
                    + "\" has an unknown version");
        }
        return new CalloutAuth(space, NKeyPair.fromSeed(c.accountSeed(), KeyType.ACCOUNT, "callout.accountSeed"),
                NKeyPair.fromSeed(c.signingSeed(), KeyType.ACCOUNT, "callout.signingSeed"), c.jwt(),
                Creds.parse(c.calloutCreds()), Creds.parse(c.sentinelCreds()), XKeyPair.fromSeed(c.xkeySeed(),
                        "callout.xkeySeed"));
    }
}
