package ai.cotal.core.creds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import io.nats.client.support.JwtUtils;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class CredsTest {
    private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");
    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final BrokerAuth broker = BrokerAuth.create("b", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
    private final SpaceAuth auth = new SpaceAuth(broker, space);

    private ClaimSet<UserClaim> mint(CredentialProfile profile, MintOptions.Builder options) {
        Creds creds = Creds.mint(auth, Identity.create(), profile, options.clock(clock).build());
        return new ClaimVerifier(clock).verifyUser(creds.jwt(), space.requireSignedBy(broker, clock));
    }

    @Test
    void lifetimesFollowTheMatrix() {
        assertEquals(NOW.getEpochSecond() + 300, mint(CredentialProfile.PROVISIONER, MintOptions.builder()).exp());
        assertEquals(NOW.getEpochSecond() + 300, mint(CredentialProfile.ISSUER, MintOptions.builder()).exp());
        assertEquals(NOW.getEpochSecond() + 86_400, mint(CredentialProfile.DELIVERY, MintOptions.builder()).exp());
        assertEquals(NOW.getEpochSecond() + 60, mint(CredentialProfile.PROBE, MintOptions.builder()).exp());
        assertNull(mint(CredentialProfile.OBSERVER, MintOptions.builder()).exp());
        assertNull(mint(CredentialProfile.TEARDOWN, MintOptions.builder()).exp());
        assertEquals(Lifetime.Renewal.RENEWABLE, CredentialProfile.DELIVERY.lifetime().renewal());
        assertEquals(Duration.ofDays(30), CredentialProfile.CONNECTION_EVICTOR.lifetime().ttl().orElseThrow());
    }

    @Test
    void userClaimsCarryProfileNameIssuerAccountAndPrincipalTags() {
        ClaimSet<UserClaim> claims = mint(CredentialProfile.OBSERVER, MintOptions.builder().owner("acme").actor("bot1"));
        assertEquals("observer", claims.name());
        assertEquals(space.signing().publicKey(), claims.iss());
        assertEquals(space.accountPublicKey(), claims.nats().issuerAccount());
        assertEquals(List.of("owner:acme", "actor:bot1", "principal:acme.bot1"), claims.nats().tags());
        assertEquals(List.of("_INBOX_" + claims.sub() + ".>", "cotal.alpha.chat.>"), claims.nats().sub().allow());
        assertFalse(String.join(",", claims.nats().pub().allow()).contains("$JS.>"));
    }

    @Test
    void probePublishesNothing() {
        ClaimSet<UserClaim> probe = mint(CredentialProfile.PROBE, MintOptions.builder());
        assertEquals(List.of(">"), probe.nats().pub().deny());
        assertNull(probe.nats().pub().allow());
    }

    @Test
    void overridesAreExclusiveAndPositive() {
        CotalException both = assertThrows(CotalException.class,
                () -> MintOptions.builder().expiresAt(NOW.plusSeconds(10)).expiresInSeconds(10).build());
        assertTrue(both.getMessage().startsWith("expiresAt"), both.getMessage());
        assertThrows(CotalException.class, () -> MintOptions.builder().expiresInSeconds(0).build());
        assertEquals(NOW.getEpochSecond() + 5, mint(CredentialProfile.OBSERVER, MintOptions.builder().expiresInSeconds(5)).exp());
        assertEquals(NOW.getEpochSecond() + 99, mint(CredentialProfile.OBSERVER,
                MintOptions.builder().expiresAt(NOW.plusSeconds(99))).exp());
        assertThrows(CotalException.class, () -> mint(CredentialProfile.OBSERVER, MintOptions.builder().expiresAt(NOW)));
    }

    @Test
    void theHostCapRefusesWideningAndShortensDefaults() {
        CotalException e = assertThrows(CotalException.class, () -> mint(CredentialProfile.PROBE,
                MintOptions.builder().maxTtl(Duration.ofSeconds(60)).expiresInSeconds(3600)));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertTrue(e.getMessage().startsWith("expiresInSeconds"), e.getMessage());
        assertEquals(NOW.getEpochSecond() + 600, mint(CredentialProfile.DELIVERY,
                MintOptions.builder().maxTtl(Duration.ofMinutes(10))).exp());
        assertEquals(NOW.getEpochSecond() + 600, mint(CredentialProfile.OBSERVER,
                MintOptions.builder().maxTtl(Duration.ofMinutes(10))).exp());
    }

    @Test
    void agentNeedsALifecycleUidAndGrantsAreValidated() {
        CotalException e = assertThrows(CotalException.class, () -> mint(CredentialProfile.AGENT, MintOptions.builder()));
        assertTrue(e.getMessage().startsWith("lifecycleUid"), e.getMessage());
        CotalException bad = assertThrows(CotalException.class,
                () -> MintOptions.builder().allowPublish(List.of("ok", "not ok")).build());
        assertTrue(bad.getMessage().startsWith("allowPublish[1]"), bad.getMessage());
        assertThrows(CotalException.class, () -> MintOptions.builder().owner("a.b").build());
        assertThrows(CotalException.class, () -> CredentialProfile.ofLabel("superuser"));
    }

    @Test
    void credsTextIsJnatsCompatibleAndParsesBack() {
        Creds creds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.builder().clock(clock).build());
        assertEquals(String.format(JwtUtils.NATS_USER_JWT_FORMAT, creds.jwt(), creds.identity().key().seed()), creds.text());
        Creds parsed = Creds.parse(creds.text());
        assertEquals(creds.jwt(), parsed.jwt());
        assertEquals(creds.userPublicKey(), parsed.userPublicKey());
        assertEquals(64, creds.fingerprint().length());
        assertFalse(creds.toString().contains(creds.identity().key().seed()));
        assertFalse(creds.identity().toString().contains(creds.identity().key().seed()), "an identity prints its id only");
    }

    @Test
    void aSignerOutsideTheProcessMintsTheSameBytes() {
        NKeyPair kept = space.signing(); // stands for a key an HSM or a signer process keeps
        AccountSigner remote = new AccountSigner() {
            @Override
            public String publicKey() {
                return kept.publicKey();
            }

            @Override
            public byte[] sign(byte[] input) {
                return kept.sign(input);
            }
        };
        Identity identity = Identity.create();
        MintOptions options = MintOptions.builder().owner("acme").actor("bot1").clock(clock).build();
        Creds byDefault = Creds.mint(auth, identity, CredentialProfile.OBSERVER, options);
        Creds bySpi = Creds.mint(new SpaceSigner("alpha", space.accountPublicKey(), remote), identity,
                CredentialProfile.OBSERVER, options);
        assertEquals(byDefault.jwt(), bySpi.jwt(), "same claims, same Ed25519 signature");
    }

    @Test
    void parseRefusesASeedThatIsNotTheSubject() {
        Creds creds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.builder().clock(clock).build());
        String foreign = String.format(JwtUtils.NATS_USER_JWT_FORMAT, creds.jwt(), Identity.create().key().seed());
        CotalException e = assertThrows(CotalException.class, () -> Creds.parse(foreign));
        assertTrue(e.getMessage().startsWith("creds"), e.getMessage());
        assertThrows(CotalException.class, () -> Creds.parse("nothing here"));
    }

    @Test
    void systemProfilesNeedTheSystemSigner() {
        assertThrows(CotalException.class, () -> Creds.mint(auth, Identity.create(), CredentialProfile.CONNECTION_EVICTOR,
                MintOptions.defaults()));
        assertThrows(CotalException.class, () -> Creds.mintSystem(broker.withoutSystemSigner(), Identity.create(),
                CredentialProfile.CONNECTION_EVICTOR, null, MintOptions.defaults()));
        assertThrows(CotalException.class, () -> Creds.mintSystem(broker, Identity.create(),
                CredentialProfile.MEMBERSHIP_OBSERVER, "not-an-account", MintOptions.defaults()));
    }
}
