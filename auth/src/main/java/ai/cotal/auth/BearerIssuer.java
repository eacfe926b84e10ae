package ai.cotal.auth;

import ai.cotal.auth.jose.Ed25519JwsSigner;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * Issues the space's bearers: EdDSA (Ed25519) JWTs with {@code iss = urn:cotal:auth:<space>},
 * {@code aud = <space>}, {@code kid} = the RFC 7638 thumbprint of the signing key, a lifetime of
 * at most 900 s, and the actor claim {@code act} naming the principal, its lifecycle uid and the
 * credential row it may connect with. The keys live in the {@link SecretStore}
 * ({@code space.<hex>/issuer.json}); {@link #jwks()} publishes their public halves.
 * Thread-safe.
 */
public final class BearerIssuer {
    /** The longest bearer this issuer signs. */
    public static final Duration MAX_TTL = Duration.ofSeconds(900);
    /** The view of a caller of an owner's manager (SPEC §14.4). */
    public static final String MANAGER_CALLER = "manager-caller";
    /** The view of a caller admitted on a manager's session (SPEC §14.5). */
    public static final String SESSION_CALLER = "session-caller";
    /** A session grant: {@code <instanceId>.<sessionId>}, both instance ids. */
    public static final java.util.regex.Pattern SESSION_GRANT = java.util.regex.Pattern.compile(
            InstanceId.PATTERN.pattern() + "\\." + InstanceId.PATTERN.pattern());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String space;
    private final String issuer;
    private final String kid;
    private final Ed25519PrivateKeyParameters key;
    private final OctetKeyPair publicJwk;
    private final Clock clock;

    private record KeyDocument(String kid, String d, String x) {
        @Override
        public String toString() {
            return "KeyDocument[" + kid + "]";
        }
    }

    private record Document(Integer ver, String issuer, String activeKid, List<KeyDocument> keys) {
    }

    /**
     * What a bearer says. {@code serving} names the instance exactly when {@code view} is
     * {@value EndpointInstance#SERVING_VIEW}, {@code sessionGrant} ({@code <instanceId>.<sessionId>})
     * exactly when it is {@value #SESSION_CALLER}, {@code managerInstanceId} only when it is
     * {@value #MANAGER_CALLER} ({@code bad-request} naming the field otherwise). Immutable.
     *
     * @param principal the principal it names ({@code sub} is its owner)
     * @param scope the scope it asks for
     * @param lifecycleUid the lifecycle uid of the principal's grant
     * @param credentialId the credential row it may connect with
     * @param ttl its lifetime, at most {@link #MAX_TTL}
     * @param parent the principal it is issued under, if any
     * @param view its view, if any
     * @param serving the instance it serves, exactly with the serving view
     * @param managerInstanceId the manager instance a {@code manager-caller} names
     * @param sessionGrant the session grant of a {@code session-caller}
     */
    public record Request(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, Optional<Principal> parent, Optional<String> view, Optional<EndpointInstance> serving,
            Optional<InstanceId> managerInstanceId, Optional<String> sessionGrant) {
        /** Checks the parts against each other; {@code bad-request} naming the field. */
        public Request {
            if (principal == null || lifecycleUid == null || credentialId == null) {
                throw CotalException.badRequest(principal == null ? "principal" : lifecycleUid == null ? "lifecycleUid"
                        : "credentialId", "is required");
            }
            if (serving.isPresent() != view.filter(EndpointInstance.SERVING_VIEW::equals).isPresent()) {
                throw CotalException.badRequest("serving", "names the instance exactly with the view "
                        + EndpointInstance.SERVING_VIEW);
            }
            if (sessionGrant.isPresent() != view.filter(SESSION_CALLER::equals).isPresent()) {
                throw CotalException.badRequest("sessionGrant", sessionGrant.isPresent()
                        ? "goes with the view " + SESSION_CALLER + " only" : "required with the view " + SESSION_CALLER);
            }
            if (sessionGrant.isPresent() && !SESSION_GRANT.matcher(sessionGrant.get()).matches()) {
                throw CotalException.badRequest("sessionGrant", "must be <instanceId>.<sessionId>, each 26 to 32 of [a-z0-9]");
            }
            if (managerInstanceId.isPresent() && !view.filter(MANAGER_CALLER::equals).isPresent()) {
                throw CotalException.badRequest("managerInstanceId", "goes with the view " + MANAGER_CALLER + " only");
            }
        }

        /** A request that names no manager instance and no session. */
        public Request(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
                Duration ttl, Optional<Principal> parent, Optional<String> view, Optional<EndpointInstance> serving) {
            this(principal, scope, lifecycleUid, credentialId, ttl, parent, view, serving, Optional.empty(), Optional.empty());
        }

        /** A request that serves no instance. */
        public Request(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
                Duration ttl, Optional<Principal> parent, Optional<String> view) {
            this(principal, scope, lifecycleUid, credentialId, ttl, parent, view, Optional.empty());
        }

        /** A request without parent or view. */
        public static Request of(Principal principal, List<String> scope, LifecycleUid lifecycleUid,
                CredentialId credentialId, Duration ttl) {
            return new Request(principal, scope, lifecycleUid, credentialId, ttl, Optional.empty(), Optional.empty());
        }
    }

    private BearerIssuer(String space, Ed25519PrivateKeyParameters key, Clock clock) {
        this.space = space;
        this.issuer = issuerOf(space);
        this.key = key;
        this.clock = clock;
        OctetKeyPair jwk = new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(key.generatePublicKey().getEncoded()))
                .build();
        try {
            this.kid = jwk.computeThumbprint().toString();
        } catch (JOSEException e) {
            throw CotalException.internal("cannot compute the key thumbprint", e);
        }
        this.publicJwk = new OctetKeyPair.Builder(jwk).keyID(kid).build();
    }

    /** {@code urn:cotal:auth:<space>}. */
    public static String issuerOf(String space) {
        return "urn:cotal:auth:" + space;
    }

    /**
     * A new key document for {@code space}'s issuer: one fresh Ed25519 key, active. Written only by
     * {@link SpaceProvisioning}, create-only.
     */
    static byte[] newKeyDocument(String space) {
        Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(RANDOM);
        BearerIssuer created = new BearerIssuer(space, key, Clock.systemUTC());
        return ClosedJson.write(ClosedJson.cotal(), new Document(1, created.issuer, created.kid,
                List.of(new KeyDocument(created.kid, Base64URL.encode(key.getEncoded()).toString(),
                        created.publicJwk.getX().toString()))));
    }

    /**
     * Loads the space's issuer key; {@code failed-precondition} when the store has none (nothing is
     * created: {@link SpaceProvisioning} writes it), {@code data-loss} when it is invalid.
     */
    public static BearerIssuer load(SecretStore store, String space, Clock clock) {
        String storeKey = SecretKeys.issuerKeysKey(space);
        Optional<byte[]> bytes = store.get(storeKey);
        if (bytes.isEmpty()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the issuer key of space \"" + space
                    + "\" is missing (" + storeKey + "): SpaceProvisioning writes it");
        }
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, storeKey);
            if (doc.ver() == null || doc.ver() != 1 || !issuerOf(space).equals(doc.issuer()) || doc.keys() == null) {
                throw CotalException.badRequest(storeKey, "needs ver 1, this space's issuer and keys");
            }
            KeyDocument active = doc.keys().stream().filter(k -> k.kid().equals(doc.activeKid())).findFirst()
                    .orElseThrow(() -> CotalException.badRequest(storeKey, "activeKid names no key"));
            BearerIssuer loaded = new BearerIssuer(space, new Ed25519PrivateKeyParameters(
                    new Base64URL(active.d()).decode(), 0), clock);
            if (!loaded.kid.equals(active.kid()) || !loaded.publicJwk.getX().toString().equals(active.x())) {
                throw CotalException.badRequest(storeKey, "the key does not match its kid");
            }
            return loaded;
        } catch (CotalException | IllegalArgumentException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, storeKey + " is invalid: " + e.getMessage(), e);
        }
    }

    /** Signs a bearer; its lifetime is {@code request.ttl()}, at most {@link #MAX_TTL}. */
    public String issue(Request request) {
        if (request.ttl() == null || request.ttl().isNegative() || request.ttl().isZero()
                || request.ttl().compareTo(MAX_TTL) > 0) {
            throw CotalException.badRequest("ttl", "must be 1 to 900 seconds");
        }
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
        request.serving().ifPresent(i -> {
            act.put("endpoint", i.endpoint());
            act.put("instanceId", i.instanceId());
        });
        request.managerInstanceId().ifPresent(i -> act.put("managerInstanceId", i.value()));
        request.sessionGrant().ifPresent(g -> act.put("sessionGrant", g));
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(owner).issuer(issuer).audience(space)
                .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(now.plus(request.ttl())))
                .claim("ver", 1).claim("scope", request.scope()).claim("act", act).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.EdDSA).type(JOSEObjectType.JWT).keyID(kid).build(),
                claims);
        try {
            jwt.sign(new Ed25519JwsSigner(key));
        } catch (JOSEException e) {
            throw CotalException.internal("cannot sign a bearer", e);
        }
        return jwt.serialize();
    }

    /** The JWKS document (public keys only). */
    public String jwks() {
        return new JWKSet(publicJwk).toString(true);
    }

    public String issuer() {
        return issuer;
    }

    public String keyId() {
        return kid;
    }

    /** The public key, for verifiers in this process. */
    public OctetKeyPair publicKey() {
        return publicJwk;
    }

    @Override
    public String toString() {
        return "BearerIssuer[" + issuer + " kid=" + kid + "]";
    }
}
