package ai.cotal.auth.internal.secrets;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * A space's bearer issuer key (SPEC §13.14): {@code {ver: 1, issuer, activeKid, keys: [{kid, d, x}]}}
 * at {@code space.<hex>/issuer.json}, one Ed25519 key whose {@code kid} is its RFC 7638
 * thumbprint. Created once, create-only, by provisioning (SPEC §13.22); the plane, the stock service
 * and the callout replicas only load it. The caller passes the space's issuer
 * ({@code BearerClaims.issuerOf}), which the document must name. Immutable; {@code toString()}
 * names the kid only.
 */
public final class IssuerKey {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Ed25519PrivateKeyParameters key;
    private final OctetKeyPair publicJwk;

    private record KeyDocument(String kid, String d, String x) {
        @Override
        public String toString() {
            return "KeyDocument[" + kid + "]";
        }
    }

    private record Document(Integer ver, String issuer, String activeKid, List<KeyDocument> keys) {
    }

    private IssuerKey(Ed25519PrivateKeyParameters key) {
        this.key = key;
        OctetKeyPair jwk = new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(key.generatePublicKey().getEncoded()))
                .build();
        try {
            this.publicJwk = new OctetKeyPair.Builder(jwk).keyID(jwk.computeThumbprint().toString()).build();
        } catch (JOSEException e) {
            throw CotalException.internal("cannot compute the key thumbprint", e);
        }
    }

    /** A new document naming {@code issuer}: one fresh Ed25519 key, active. Written only by provisioning, create-only. */
    public static byte[] newDocument(String issuer) {
        IssuerKey created = new IssuerKey(new Ed25519PrivateKeyParameters(RANDOM));
        return ClosedJson.write(ClosedJson.cotal(), new Document(1, issuer, created.keyId(),
                List.of(new KeyDocument(created.keyId(), Base64URL.encode(created.key.getEncoded()).toString(),
                        created.publicJwk.getX().toString()))));
    }

    /**
     * The space's active key; {@code failed-precondition} when the store has none (nothing is
     * created: provisioning writes it), {@code data-loss} when it is invalid or names another issuer.
     */
    public static IssuerKey load(SecretStore store, String space, String issuer) {
        String storeKey = SecretKeys.issuerKeysKey(space);
        Optional<byte[]> bytes = store.get(storeKey);
        if (bytes.isEmpty()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the issuer key of space \"" + space
                    + "\" is missing (" + storeKey + "): SpaceProvisioning writes it");
        }
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, storeKey);
            if (doc.ver() == null || doc.ver() != 1 || !issuer.equals(doc.issuer()) || doc.keys() == null) {
                throw CotalException.badRequest(storeKey, "needs ver 1, this space's issuer and keys");
            }
            KeyDocument active = doc.keys().stream().filter(k -> k.kid().equals(doc.activeKid())).findFirst()
                    .orElseThrow(() -> CotalException.badRequest(storeKey, "activeKid names no key"));
            IssuerKey loaded = new IssuerKey(new Ed25519PrivateKeyParameters(new Base64URL(active.d()).decode(), 0));
            if (!loaded.keyId().equals(active.kid()) || !loaded.publicJwk.getX().toString().equals(active.x())) {
                throw CotalException.badRequest(storeKey, "the key does not match its kid");
            }
            return loaded;
        } catch (CotalException | IllegalArgumentException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, storeKey + " is invalid: " + e.getMessage(), e);
        }
    }

    /** The private key, for the issuer's signer only. */
    public Ed25519PrivateKeyParameters privateKey() {
        return key;
    }

    /** The public key, its {@code kid} set. */
    public OctetKeyPair publicKey() {
        return publicJwk;
    }

    /** The key's {@code kid}: its RFC 7638 thumbprint. */
    public String keyId() {
        return publicJwk.getKeyID();
    }

    @Override
    public String toString() {
        return "IssuerKey[kid=" + keyId() + "]";
    }
}
