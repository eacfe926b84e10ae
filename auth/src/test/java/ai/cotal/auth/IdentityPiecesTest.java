package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.plane.FileActorLedger;
import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.jose.Ed25519JwsVerifier;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.SignedJWT;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Owner derivation, the IdP pin and bearers. */
class IdentityPiecesTest {
    @TempDir
    Path dir;

    @Test
    void ownerDerivationMatchesAnIndependentlyComputedVector() {
        byte[] secret = new byte[32];
        for (int i = 0; i < 32; i++) {
            secret[i] = (byte) i;
        }
        // python3: hmac.new(bytes(range(32)), b'cotal-owner-v1:["https://idp.example","user-123"]', sha256),
        // first 16 bytes, base32, lowercase, unpadded
        assertEquals(new Owner("u_g34qewu4qwbgftozn4lar5yudu"), Owners.deriveOwnerForIdpSubject(secret, "https://idp.example", "user-123"));
        assertEquals(28, Owners.deriveOwnerToken(secret, "x").value().length());
        assertThrows(CotalException.class, () -> Owners.deriveOwnerToken(new byte[31], "x"));
    }

    @Test
    void theIdpPinAcceptsHttpsOrLoopbackAndRefusesRepinning() {
        IdpPin pin = IdpPin.pin(dir, "https://idp.example.com/auth/");
        assertEquals(new IdpPin("https://idp.example.com/auth", "https://idp.example.com", "https://idp.example.com",
                "https://idp.example.com/auth/jwks"), pin);
        assertEquals(Optional.of(pin), IdpPin.read(dir));
        IdpPin.pin(dir, "https://idp.example.com/auth");
        assertThrows(CotalException.class, () -> IdpPin.pin(dir, "https://other.example.com"));
        assertEquals("http://127.0.0.1:8080/jwks", IdpPin.derive("http://127.0.0.1:8080").jwksUri());
        assertEquals("http://localhost:8080/jwks", IdpPin.derive("http://LocalHost:8080").jwksUri(), "localhost is loopback");
        for (String bad : new String[] {"http://idp.example.com", "http://localhost.example.com", "https://u:p@idp.example",
                "https://idp.example?x=1", "ftp://idp.example", "not a url"}) {
            assertThrows(CotalException.class, () -> IdpPin.derive(bad), bad);
        }
    }

    @Test
    void bearersAreEdDsaWithTheThumbprintKidAndVerifyAgainstTheJwks() throws Exception {
        InMemorySecretStore store = PlaneFixture.provisioned("alpha");
        BearerIssuer issuer = BearerIssuer.load(store, "alpha", Clock.systemUTC());
        assertEquals(issuer.keyId(), BearerIssuer.load(store, "alpha", Clock.systemUTC()).keyId(), "the key is kept");
        String token = issuer.issue(BearerRequest.member(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of("chat"), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"),
                new CredentialId("abcdefghijklmnopqrstuvwxyz"), Duration.ofSeconds(300)));
        SignedJWT jwt = SignedJWT.parse(token);
        assertEquals("EdDSA", jwt.getHeader().getAlgorithm().getName());
        assertEquals(issuer.keyId(), jwt.getHeader().getKeyID());
        assertEquals("urn:cotal:auth:alpha", jwt.getJWTClaimsSet().getIssuer());
        assertEquals(List.of("alpha"), jwt.getJWTClaimsSet().getAudience());
        assertEquals(300, (jwt.getJWTClaimsSet().getExpirationTime().getTime() - jwt.getJWTClaimsSet().getIssueTime().getTime()) / 1000);
        @SuppressWarnings("unchecked")
        Map<String, Object> act = (Map<String, Object>) jwt.getJWTClaimsSet().getClaim("act");
        assertEquals("abcdefghijklmnopqrstuvwxyz", act.get("credentialId"));
        OctetKeyPair key = (OctetKeyPair) JWKSet.parse(issuer.jwks()).getKeyByKeyId(issuer.keyId());
        assertTrue(key.getD() == null, "the JWKS holds public keys only");
        assertEquals(issuer.keyId(), key.computeThumbprint().toString());
        assertTrue(jwt.verify(new Ed25519JwsVerifier(key.getDecodedX())));
        assertThrows(CotalException.class, () -> issuer.issue(BearerRequest.member(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of(), new LifecycleUid("x"), new CredentialId("y"),
                Duration.ofSeconds(901))));
    }

    @Test
    void optionsAreValidatedAtBuild() {
        AuthPlaneOptions.Builder base = AuthPlaneOptions.builder().server("nats://127.0.0.1:4222").space("alpha")
                .stateDir(dir).secretStore(new InMemorySecretStore())
                .signer(ai.cotal.core.trust.SpaceAuth.create("alpha", Clock.systemUTC()).strip());
        base.build();
        CotalException ttl = assertThrows(CotalException.class, () -> base.standingTtl(Duration.ofSeconds(4)).build());
        assertTrue(ttl.getMessage().startsWith("standingTtl"), ttl.getMessage());
        assertThrows(CotalException.class, () -> base.standingTtl(Duration.ofHours(25)).build());
        base.standingTtl(Duration.ofMinutes(15));
        assertEquals(Duration.ofHours(24), base.build().managerStandingTtl(), "the reference's default, 86400 s");
        CotalException managerTtl = assertThrows(CotalException.class, () -> base.managerStandingTtl(Duration.ofSeconds(4))
                .build());
        assertTrue(managerTtl.getMessage().startsWith("managerStandingTtl"), managerTtl.getMessage());
        assertThrows(CotalException.class, () -> base.managerStandingTtl(Duration.ofSeconds(86_401)).build());
        base.managerStandingTtl(Duration.ofSeconds(5));
        CotalException other = assertThrows(CotalException.class, () -> base.space("beta").build());
        assertTrue(other.getMessage().startsWith("signer"), other.getMessage());
    }

    @Test
    void actorTokensMintWhatTheLedgerAndTheAgentArmExpect() {
        // FIPS 180-2 vector: SHA-256("abc")
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", ActorTokens.tokenHash("abc"));
        assertEquals("actorToken", assertThrows(CotalException.class, () -> ActorTokens.tokenHash("")).getMessage()
                .split(":")[0]);
        String token = ActorTokens.newActorToken();
        assertTrue(token.matches("[A-Za-z0-9_-]{43}"), token.length() + " characters");
        assertTrue(!token.equals(ActorTokens.newActorToken()), "fresh every call");
        LifecycleUid uid = ActorTokens.newLifecycleUid();
        assertTrue(uid.value().matches("[a-z2-7]{32}"), uid.value());
        ActorRow row = new FileActorLedger(dir, Clock.systemUTC()).grantManagedActor(Principal.of("u_ownerownerownerownerowners", "agent"), Grant.of(
                List.of(), List.of(), List.of()), ActorTokens.tokenHash(token), uid);
        assertEquals(Optional.of(ActorTokens.tokenHash(token)), row.tokenHash());
        assertEquals(uid, row.lifecycleUid());
    }
}
