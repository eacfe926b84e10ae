package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.internal.plane.BearerVerifier;
import ai.cotal.auth.jose.Ed25519JwsSigner;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;

/**
 * A bearer's identifiers (SPEC §1.1, §13.14): the verifier answers them typed, and a bearer the
 * issuer's own key signed whose lifecycle uid, credential id or parent breaks its type's rule is
 * refused {@code unauthenticated} naming the claim.
 */
class BearerIdentifiersTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private final InMemorySecretStore store = PlaneFixture.provisioned("alpha");
    private final BearerIssuer issuer = BearerIssuer.load(store, "alpha", Clock.systemUTC());
    private final BearerVerifier verifier = new BearerVerifier("alpha", issuer.publicKey(), Clock.systemUTC());

    @Test
    void theVerifierAnswersTheIssuedIdentifiersTyped() {
        Principal laptop = Principal.of(OWNER, "laptop");
        Principal parent = Principal.of(OWNER, "desk");
        BearerClaims claims = verifier.verify(issuer.issue(new BearerRequest.Member(laptop, List.of("chat"),
                new LifecycleUid(UID), new CredentialId(UID), Duration.ofMinutes(5), Optional.of(parent))));
        assertEquals(laptop, claims.principal());
        assertEquals(new LifecycleUid(UID), claims.lifecycleUid());
        assertEquals(new CredentialId(UID), claims.credentialId());
        assertEquals(Optional.of(parent), claims.parent());
        assertEquals(new ConnectAttempt(laptop, List.of("chat"), new LifecycleUid(UID), new CredentialId(UID)),
                claims.attempt());
    }

    @Test
    void aSignedBearerWithAnIdentifierOutsideItsRuleIsRefusedNamingTheClaim() throws Exception {
        assertEquals("laptop", verifier.verify(signed(Map.of())).actor().value(), "a well-formed act verifies");
        Map<String, String> cases = Map.of(
                "lifecycleUid", "act.lifecycleUid is malformed",
                "credentialId", "act.credentialId is malformed",
                "parent", "act.parent is malformed");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            String token = signed(Map.of(c.getKey(), "NOT-AN-ID"));
            CotalException refused = assertThrows(CotalException.class, () -> verifier.verify(token), c.getKey());
            assertEquals(ErrorCode.UNAUTHENTICATED, refused.code(), refused.getMessage());
            assertEquals("bearer refused: " + c.getValue(), refused.getMessage());
        }
    }

    /** A bearer signed with the space's issuer key, its {@code act} the issuer's with {@code overrides}. */
    private String signed(Map<String, String> overrides) throws Exception {
        JsonNode doc = new ObjectMapper().readTree(store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow());
        Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(
                new Base64URL(doc.path("keys").get(0).path("d").asText()).decode(), 0);
        Map<String, Object> act = new LinkedHashMap<>();
        act.put("owner", OWNER);
        act.put("actor", "laptop");
        act.put("scope", List.of("chat"));
        act.put("lifecycleUid", UID);
        act.put("credentialId", UID);
        act.putAll(overrides);
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.EdDSA).type(JOSEObjectType.JWT)
                .keyID(issuer.keyId()).build(), new JWTClaimsSet.Builder().subject(OWNER).issuer(issuer.issuer())
                .audience("alpha").issueTime(Date.from(now)).notBeforeTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(300))).claim("ver", 1).claim("scope", List.of("chat"))
                .claim("act", act).build());
        jwt.sign(new Ed25519JwsSigner(key));
        return jwt.serialize();
    }
}
