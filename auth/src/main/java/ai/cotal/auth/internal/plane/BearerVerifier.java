package ai.cotal.auth.internal.plane;

import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.jose.Ed25519JwsVerifier;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import java.time.Clock;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Verifies the space's bearers (SPEC §13.14): JWS {@code EdDSA} only, no embedded or remote keys
 * in the header ({@code jku}, {@code jwk}, {@code x5u}, {@code x5c}), the issuer's own key by
 * {@code kid}, {@code iss = urn:cotal:auth:<space>}, {@code aud} exactly the space, {@code exp},
 * {@code iat} and {@code nbf} present with a lifetime of at most 900 s and 5 s tolerance,
 * {@code ver: 1}, a derived owner as {@code sub} equal to {@code act.owner}, a well-formed actor.
 * Every refusal is {@code unauthenticated} with the reason. Embedders verify through the plane's
 * {@code bearers()}; a callout replica holds one of its own. Immutable and thread-safe.
 */
public final class BearerVerifier {
    private static final long SKEW = 5;
    private static final Set<String> ACT_FIELDS = Set.of("owner", "actor", "scope", "parent", "lifecycleUid",
            "credentialId", "view", "endpoint", "instanceId", "managerInstanceId", "sessionGrant");

    private final String space;
    private final String issuer;
    private final OctetKeyPair key;
    private final Clock clock;

    /** A verifier of {@code space}'s bearers signed with {@code issuerKey} (its {@code kid} set). */
    public BearerVerifier(String space, OctetKeyPair issuerKey, Clock clock) {
        this.space = Objects.requireNonNull(space, "space");
        this.issuer = BearerClaims.issuerOf(space);
        this.key = Objects.requireNonNull(issuerKey, "issuerKey");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The claims of {@code token}; {@code unauthenticated} with the reason when it is refused. */
    public BearerClaims verify(String token) {
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token == null ? "" : token);
        } catch (ParseException e) {
            throw refused("not a JWS");
        }
        JWSHeader header = jwt.getHeader();
        if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm()) && !JWSAlgorithm.Ed25519.equals(header.getAlgorithm())) {
            throw refused("alg must be EdDSA");
        }
        if (header.getJWKURL() != null || header.getJWK() != null || header.getX509CertURL() != null
                || header.getX509CertChain() != null) {
            throw refused("the header must not carry or point to keys");
        }
        if (!key.getKeyID().equals(header.getKeyID())) {
            throw refused("kid names no key of this issuer");
        }
        try {
            if (!jwt.verify(new Ed25519JwsVerifier(key.getDecodedX()))) {
                throw refused("signature does not verify");
            }
            return claims(jwt.getJWTClaimsSet());
        } catch (JOSEException | ParseException e) {
            throw refused("unreadable"); // never the parser's words: they may quote the token
        }
    }

    private BearerClaims claims(JWTClaimsSet claims) throws ParseException {
        if (!issuer.equals(claims.getIssuer())) {
            throw refused("iss is not " + issuer);
        }
        if (claims.getAudience() == null || !claims.getAudience().equals(List.of(space))) {
            throw refused("aud is not exactly the space");
        }
        long now = clock.instant().getEpochSecond();
        long exp = seconds(claims.getExpirationTime(), "exp");
        long iat = seconds(claims.getIssueTime(), "iat");
        long nbf = seconds(claims.getNotBeforeTime(), "nbf");
        if (iat > now + SKEW || nbf > now + SKEW) {
            throw refused("iat or nbf is in the future");
        }
        if (exp <= now - SKEW) {
            throw refused("expired");
        }
        if (exp - iat > BearerRequest.MAX_TTL.toSeconds() || exp > now + BearerRequest.MAX_TTL.toSeconds() + SKEW) {
            throw refused("lives longer than 900 s");
        }
        Object ver = claims.getClaim("ver");
        if (!(ver instanceof Number n) || n.longValue() != 1) {
            throw refused("ver must be 1");
        }
        String owner = claims.getSubject();
        if (!Owner.matches(owner)) {
            throw refused("sub is not a derived owner");
        }
        Map<String, Object> act = claims.getJSONObjectClaim("act");
        if (act == null || !ACT_FIELDS.containsAll(act.keySet())) {
            throw refused("act is missing or has unknown fields");
        }
        if (!owner.equals(act.get("owner"))) {
            throw refused("act.owner differs from sub");
        }
        String actor = text(act, "actor");
        if (!Actor.matches(actor)) {
            throw refused("act.actor is malformed");
        }
        List<String> scope = strings(act.get("scope"), "act.scope");
        List<String> topScope = claims.getStringListClaim("scope");
        if (topScope != null && !topScope.equals(scope)) {
            throw refused("scope differs from act.scope");
        }
        String lifecycleUid = text(act, "lifecycleUid");
        if (!LifecycleUid.matches(lifecycleUid)) {
            throw refused("act.lifecycleUid is malformed");
        }
        String credentialId = text(act, "credentialId");
        if (!CredentialId.matches(credentialId)) {
            throw refused("act.credentialId is malformed");
        }
        Object parent = act.get("parent");
        if (parent != null && !(parent instanceof String p && Principal.matches(p))) {
            throw refused("act.parent is malformed");
        }
        Optional<String> view = Optional.ofNullable((String) act.get("view"));
        return new BearerClaims(new Principal(new Owner(owner), new Actor(actor)), scope, new LifecycleUid(lifecycleUid),
                new CredentialId(credentialId), Optional.ofNullable((String) parent).map(p -> Principal.parse(p, "parent")),
                view, iat, exp, serving(act, view), named(act, view, "managerInstanceId", BearerRequest.ManagerCaller.VIEW,
                        false, InstanceId.PATTERN).map(InstanceId::new), named(act, view, "sessionGrant",
                        BearerRequest.SessionCaller.VIEW, true, BearerRequest.SessionCaller.GRANT));
    }

    /** {@code act.<field>}: only with {@code withView} (and then always when {@code required}), in its grammar. */
    private static Optional<String> named(Map<String, Object> act, Optional<String> view, String field, String withView,
            boolean required, java.util.regex.Pattern grammar) {
        boolean viewed = view.filter(withView::equals).isPresent();
        if (!act.containsKey(field)) {
            if (viewed && required) {
                throw refused("act." + field + " is required with the view " + withView);
            }
            return Optional.empty();
        }
        if (!viewed) {
            throw refused("act." + field + " goes with the view " + withView + " only");
        }
        if (!(act.get(field) instanceof String value) || !grammar.matcher(value).matches()) {
            throw refused("act." + field + " is malformed");
        }
        return Optional.of(value);
    }

    /** The served instance: named exactly with the serving view, in the host contract's grammars. */
    private static Optional<EndpointInstance> serving(Map<String, Object> act, Optional<String> view) {
        boolean named = act.containsKey("endpoint") || act.containsKey("instanceId");
        if (view.filter(EndpointInstance.SERVING_VIEW::equals).isEmpty()) {
            if (named) {
                throw refused("act.endpoint and act.instanceId go with the view " + EndpointInstance.SERVING_VIEW + " only");
            }
            return Optional.empty();
        }
        String endpoint = text(act, "endpoint");
        String instanceId = text(act, "instanceId");
        try {
            return Optional.of(new EndpointInstance(endpoint, instanceId));
        } catch (CotalException e) {
            throw refused("act.endpoint or act.instanceId is malformed");
        }
    }

    private static long seconds(Date date, String name) {
        if (date == null) {
            throw refused(name + " is required");
        }
        return date.getTime() / 1000;
    }

    private static String text(Map<String, Object> act, String field) {
        Object value = act.get(field);
        if (!(value instanceof String s) || s.isEmpty()) {
            throw refused("act." + field + " is required");
        }
        return s;
    }

    private static List<String> strings(Object value, String field) {
        if (!(value instanceof List<?> list) || !list.stream().allMatch(String.class::isInstance)) {
            throw refused(field + " must be a list of strings");
        }
        return list.stream().map(String.class::cast).toList();
    }

    private static CotalException refused(String reason) {
        return CotalException.unauthenticated("bearer refused: " + reason);
    }
}
