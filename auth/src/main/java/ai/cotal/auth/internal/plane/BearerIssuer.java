package ai.cotal.auth.internal.plane;

import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.internal.secrets.IssuerKey;
import ai.cotal.auth.jose.Ed25519JwsSigner;
import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Signs the space's bearers (SPEC §13.14): EdDSA (Ed25519) JWTs with {@code iss = urn:cotal:auth:<space>},
 * {@code aud = <space>}, {@code kid} = the RFC 7638 thumbprint of the signing key, the request's
 * lifetime and the actor claim {@code act} naming the principal, its lifecycle uid, the credential
 * row it may connect with and what its kind adds. The key is the space's {@link IssuerKey};
 * {@link #jwks()} publishes its public half. Embedders issue through the plane's
 * {@code bearers()}. Thread-safe.
 */
public final class BearerIssuer {
    private final String space;
    private final String issuer;
    private final IssuerKey key;
    private final Clock clock;

    private BearerIssuer(String space, IssuerKey key, Clock clock) {
        this.space = space;
        this.issuer = BearerClaims.issuerOf(space);
        this.key = key;
        this.clock = clock;
    }

    /**
     * Loads the space's issuer key; {@code failed-precondition} when the store has none (nothing is
     * created: provisioning writes it), {@code data-loss} when it is invalid.
     */
    public static BearerIssuer load(SecretStore store, String space, Clock clock) {
        return new BearerIssuer(space, IssuerKey.load(store, space, BearerClaims.issuerOf(space)), clock);
    }

    /** Signs a bearer; the request checked its parts when it was built. */
    public String issue(BearerRequest request) {
        Instant now = clock.instant();
        Map<String, Object> act = new LinkedHashMap<>();
        String owner = request.principal().owner().value();
        act.put("owner", owner);
        act.put("actor", request.principal().actor().value());
        act.put("scope", request.scope());
        request.parent().ifPresent(p -> act.put("parent", p.toString()));
        act.put("lifecycleUid", request.lifecycleUid().value());
        act.put("credentialId", request.credentialId().value());
        request.view().ifPresent(v -> act.put("view", v));
        if (request instanceof BearerRequest.Serving serving) {
            act.put("endpoint", serving.instance().endpoint());
            act.put("instanceId", serving.instance().instanceId());
        } else if (request instanceof BearerRequest.ManagerCaller caller) {
            caller.managerInstanceId().ifPresent(i -> act.put("managerInstanceId", i.value()));
        } else if (request instanceof BearerRequest.SessionCaller caller) {
            act.put("sessionGrant", caller.sessionGrant());
        }
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(owner).issuer(issuer).audience(space)
                .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(now.plus(request.ttl())))
                .claim("ver", 1).claim("scope", request.scope()).claim("act", act).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.EdDSA).type(JOSEObjectType.JWT)
                .keyID(key.keyId()).build(), claims);
        try {
            jwt.sign(new Ed25519JwsSigner(key.privateKey()));
        } catch (JOSEException e) {
            throw CotalException.internal("cannot sign a bearer", e);
        }
        return jwt.serialize();
    }

    /** The JWKS document (public keys only). */
    public String jwks() {
        return new JWKSet(key.publicKey()).toString(true);
    }

    /** {@code urn:cotal:auth:<space>}. */
    public String issuer() {
        return issuer;
    }

    /** The signing key's {@code kid}. */
    public String keyId() {
        return key.keyId();
    }

    /** The public key, for verifiers in this process. */
    public OctetKeyPair publicKey() {
        return key.publicKey();
    }

    @Override
    public String toString() {
        return "BearerIssuer[" + issuer + " kid=" + key.keyId() + "]";
    }
}
