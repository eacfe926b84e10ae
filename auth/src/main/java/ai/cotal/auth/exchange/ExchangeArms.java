package ai.cotal.auth.exchange;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.jose.Ed25519JwsVerifier;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The two exchange arms (SPEC §13.17). Human: an IdP JWT, verified against the pinned IdP's keys,
 * becomes a bearer for an interactive row of the derived owner. Agent: an actor token, compared
 * by hash in constant time with a managed row, becomes a short bearer; every agent failure reads
 * the same. Each success writes a fresh credential row the bearer names. A bearer of the
 * {@value EndpointInstance#SERVING_VIEW} view names its instance; no record is read here: the
 * callout checks the instance at every connect.
 */
final class ExchangeArms {
    static final String AGENT_REFUSAL = "agent exchange refused: unknown agent or wrong secret";
    private static final String MANAGER_CALLER = BearerRequest.ManagerCaller.VIEW;
    private static final String SESSION_CALLER = BearerRequest.SessionCaller.VIEW;
    private static final long SKEW = 5;
    private static final Duration AGENT_TTL = Duration.ofSeconds(300);

    /**
     * The request body: closed; exactly one of {@code idpToken} and {@code actorToken}; {@code endpoint}
     * and {@code instanceId} exactly with the view {@value EndpointInstance#SERVING_VIEW};
     * {@code sessionGrant} exactly with {@code session-caller}; {@code managerInstanceId} only with
     * {@code manager-caller} (SPEC §13.17).
     */
    record Request(String idpToken, String owner, String actor, String actorToken, Long ttlSec, String view,
            String endpoint, String instanceId, String managerInstanceId, String sessionGrant) {
        /** The instance a serving bearer names ({@code bad-request} naming the field when the body is not consistent). */
        Optional<EndpointInstance> serving() {
            if (view != null && !view.equals(MANAGER_CALLER) && !view.equals(SESSION_CALLER)
                    && !view.equals(EndpointInstance.SERVING_VIEW)) {
                throw CotalException.badRequest("view", "must be " + MANAGER_CALLER + ", " + SESSION_CALLER + " or "
                        + EndpointInstance.SERVING_VIEW);
            }
            if (SESSION_CALLER.equals(view) != (sessionGrant != null)) {
                throw CotalException.badRequest("sessionGrant", sessionGrant != null ? "goes with the view "
                        + SESSION_CALLER + " only" : "required with the view " + SESSION_CALLER);
            }
            if (managerInstanceId != null && !MANAGER_CALLER.equals(view)) {
                throw CotalException.badRequest("managerInstanceId", "goes with the view " + MANAGER_CALLER + " only");
            }
            if (managerInstanceId != null) {
                InstanceId.of(managerInstanceId, "managerInstanceId");
            }
            if (sessionGrant != null && !BearerRequest.SessionCaller.GRANT.matcher(sessionGrant).matches()) {
                throw CotalException.badRequest("sessionGrant", "must be " + BearerRequest.SessionCaller.GRANT_RULE);
            }
            if (!EndpointInstance.SERVING_VIEW.equals(view)) {
                if (endpoint != null || instanceId != null) {
                    throw CotalException.badRequest(endpoint != null ? "endpoint" : "instanceId", "goes with the view "
                            + EndpointInstance.SERVING_VIEW + " only");
                }
                return Optional.empty();
            }
            return Optional.of(new EndpointInstance(endpoint, instanceId));
        }

        /** The bearer this body asks for, of {@code row} with its scope and parent; {@link #serving()} checked the body. */
        BearerRequest bearer(ActorRow row, CredentialId credential, Duration ttl, Optional<EndpointInstance> serving) {
            if (serving.isPresent()) {
                return new BearerRequest.Serving(row.principal(), row.scope(), row.lifecycleUid(), credential, ttl,
                        row.parent(), serving.get());
            }
            if (SESSION_CALLER.equals(view)) {
                return new BearerRequest.SessionCaller(row.principal(), row.scope(), row.lifecycleUid(), credential, ttl,
                        row.parent(), sessionGrant);
            }
            if (MANAGER_CALLER.equals(view)) {
                return new BearerRequest.ManagerCaller(row.principal(), row.scope(), row.lifecycleUid(), credential, ttl,
                        row.parent(), Optional.ofNullable(managerInstanceId).map(InstanceId::new));
            }
            return new BearerRequest.Member(row.principal(), row.scope(), row.lifecycleUid(), credential, ttl, row.parent());
        }
    }

    /** The response body. */
    record Response(String token, String owner, long exp) {
    }

    private final AuthAuthorityPlane plane;
    private final JwksSource jwks;
    private final OidcVerifier oidc;
    private final Clock clock;
    private final PolicyAdmission admission;

    ExchangeArms(AuthAuthorityPlane plane, JwksSource jwks, int jwksFetchesPerMinute, Clock clock,
            PolicyAdmission admission) {
        this.plane = plane;
        this.jwks = jwks;
        this.oidc = new OidcVerifier(new OidcKeys(jwks, jwksFetchesPerMinute, clock), clock);
        this.clock = clock;
        this.admission = admission;
    }

    Response exchange(Request request) {
        return request.idpToken() != null ? human(request) : agent(request);
    }

    /** Verifies an IdP token against the space's pin ({@code unauthenticated} with the reason). */
    JWTClaimsSet verifyIdp(String token) {
        IdpPin pin = plane.idpPin().orElseThrow(() -> refused("no identity provider is pinned for this space"));
        return verifyIdp(token, pin);
    }

    private Response human(Request request) {
        JWTClaimsSet idp = verifyIdp(request.idpToken());
        Owner owner = plane.deriveOwner(idp.getIssuer(), idp.getSubject());
        String actor = request.actor();
        if (!Actor.matches(actor)) {
            throw new CotalException(ErrorCode.BAD_REQUEST, "actor: required, letters, digits and _");
        }
        long idpLeft = idp.getExpirationTime().getTime() / 1000 - clock.instant().getEpochSecond();
        long ttl = Math.min(Math.min(request.ttlSec() == null ? 900 : request.ttlSec(), BearerRequest.MAX_TTL.toSeconds()),
                idpLeft);
        if (ttl <= 0) {
            throw refused("the identity proof has no time left");
        }
        request.serving(); // a bad body is refused before the grant policy writes anything
        ActorRow row = admission.row(new Principal(owner, new Actor(actor)), idp); // the ledger's row, after the grant policy
        if (row.kind() != ActorRow.Kind.INTERACTIVE) {
            throw refused("actor " + actor + " is a managed agent: use its actor token");
        }
        return issue(row, Duration.ofSeconds(ttl), request);
    }

    private Response agent(Request request) {
        Optional<ActorRow> found;
        try {
            found = request.owner() == null || request.actor() == null ? Optional.empty()
                    : plane.ledger().find(Principal.of(request.owner(), request.actor()));
        } catch (CotalException e) {
            found = Optional.empty();
        }
        byte[] presented = sha256Hex(request.actorToken() == null ? "" : request.actorToken());
        byte[] expected = found.flatMap(ActorRow::tokenHash).map(h -> h.getBytes(StandardCharsets.US_ASCII))
                .orElse(new byte[64]);
        boolean match = MessageDigest.isEqual(presented, expected);
        if (found.isEmpty() || found.get().kind() != ActorRow.Kind.MANAGED || !match) {
            throw refused(AGENT_REFUSAL);
        }
        long ttl = Math.min(request.ttlSec() == null ? AGENT_TTL.toSeconds() : request.ttlSec(), AGENT_TTL.toSeconds());
        return issue(found.get(), Duration.ofSeconds(ttl), request);
    }

    private Response issue(ActorRow row, Duration ttl, Request request) {
        Optional<EndpointInstance> serving = request.serving(); // the body is checked before the row is written
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        String token = plane.bearers().issue(request.bearer(row, credential, ttl, serving));
        return new Response(token, row.owner().value(), clock.instant().getEpochSecond() + ttl.toSeconds());
    }

    private JWTClaimsSet verifyIdp(String token, IdpPin pin) {
        if (pin.kind() == IdpPin.Kind.OIDC) {
            return oidc.verify(token, pin);
        }
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            JWSHeader header = jwt.getHeader();
            if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm()) && !JWSAlgorithm.Ed25519.equals(header.getAlgorithm())) {
                throw refused("identity proof: alg must be EdDSA");
            }
            if (header.getJWKURL() != null || header.getJWK() != null || header.getX509CertURL() != null
                    || header.getX509CertChain() != null) {
                throw refused("identity proof: the header must not carry or point to keys");
            }
            JWK key = header.getKeyID() == null ? null : stockKeys(pin).getKeyByKeyId(header.getKeyID());
            if (!(key instanceof OctetKeyPair okp) || !Curve.Ed25519.equals(okp.getCurve())) {
                throw refused("identity proof: kid names no Ed25519 key of the pinned provider");
            }
            if (!jwt.verify(new Ed25519JwsVerifier(okp.getDecodedX()))) {
                throw refused("identity proof: signature does not verify");
            }
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            long now = clock.instant().getEpochSecond();
            if (!pin.issuer().equals(claims.getIssuer())) {
                throw refused("identity proof: iss is not the pinned issuer");
            }
            if (claims.getAudience() == null || !claims.getAudience().equals(List.of(pin.audience()))) {
                throw refused("identity proof: aud is not exactly the pinned audience");
            }
            if (claims.getExpirationTime() == null || claims.getIssueTime() == null) {
                throw refused("identity proof: exp and iat are required");
            }
            if (claims.getIssueTime().getTime() / 1000 > now + SKEW) {
                throw refused("identity proof: iat is in the future");
            }
            if (claims.getExpirationTime().getTime() / 1000 <= now) {
                throw refused("identity proof: expired");
            }
            if (claims.getSubject() == null || claims.getSubject().isEmpty()) {
                throw refused("identity proof: sub is required");
            }
            return claims;
        } catch (CotalException e) {
            throw e;
        } catch (Exception e) {
            throw refused("identity proof: unreadable");
        }
    }

    /** The stock pin's keys; a source that cannot have them is the identity provider's 503 (SPEC §13.17). */
    private com.nimbusds.jose.jwk.JWKSet stockKeys(IdpPin pin) {
        try {
            return jwks.keys(URI.create(pin.jwksUri()));
        } catch (CotalException e) {
            if (e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.DEADLINE_EXCEEDED) {
                throw IdpKeysUnavailable.cannotFetch(e);
            }
            throw e;
        }
    }

    private static byte[] sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)))
                    .getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }

    static CotalException refused(String reason) {
        return CotalException.unauthenticated(reason);
    }
}
