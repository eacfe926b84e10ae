package ai.cotal.core.creds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The matrix's refusals that need no broker: pins, unknown labels, endpoint-serve, public-key mints, lifetimes. */
class ProfileMatrixTest {
    private final BrokerAuth broker = BrokerAuth.create("matrix", Clock.systemUTC());
    private final SpaceSigner signer = new SpaceAuth(broker, SpaceAccountAuth.create(broker, "alpha", Clock.systemUTC())).strip();

    private static MintOptions pin(String pin) {
        return MintOptions.builder().pin(pin).build();
    }

    @Test
    void pinnedProfilesRefuseAMissingPinAndUnpinnedOnesRefuseAPin() {
        for (CredentialProfile profile : CredentialProfile.values()) {
            if (profile.systemAccount() || profile == CredentialProfile.ENDPOINT_SERVE) {
                continue;
            }
            switch (profile.pin()) {
                case LIFECYCLE_UID -> assertEquals("lifecycleUid", field(refused(profile, MintOptions.defaults())));
                case RUN, INSTANCE, SESSION -> assertEquals("pin", field(refused(profile, MintOptions.defaults())));
                default -> assertEquals("pin", field(refused(profile, pin("x1"))), profile.label());
            }
        }
        assertThrows(CotalException.class, () -> pin("has.dot"));
    }

    private static String field(CotalException e) {
        return e.getMessage().substring(0, e.getMessage().indexOf(':'));
    }

    private CotalException refused(CredentialProfile profile, MintOptions options) {
        CotalException e = assertThrows(CotalException.class, () -> Creds.mint(signer, Identity.create(), profile, options),
                profile.label());
        assertEquals(ErrorCode.BAD_REQUEST, e.code(), profile.label());
        return e;
    }

    @Test
    void anUnknownLabelIsRefusedAndEveryLabelIsKnown() {
        assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class, () -> CredentialProfile.ofLabel("agnet")).code());
        for (CredentialProfile profile : CredentialProfile.values()) {
            assertEquals(profile, CredentialProfile.ofLabel(profile.label()));
        }
        assertEquals(39, CredentialProfile.values().length);
    }

    @Test
    void noProfileGrantsJetStreamWholesale() {
        for (CredentialProfile profile : CredentialProfile.values()) {
            if (profile.systemAccount() || profile == CredentialProfile.ENDPOINT_SERVE) {
                continue;
            }
            MintOptions options = switch (profile.pin()) {
                case LIFECYCLE_UID -> MintOptions.builder().lifecycleUid("abcdefghijklmnopqrstuvwxyz").build();
                case NONE -> MintOptions.defaults();
                default -> pin("p1");
            };
            var user = NatsJwt.decode(Creds.mint(signer, Identity.create(), profile, options).jwt(),
                    ai.cotal.core.jwt.UserClaim.class).nats();
            List<String> subjects = new ArrayList<>();
            for (var permission : List.of(user.pub(), user.sub())) {
                if (permission.allow() != null) {
                    subjects.addAll(permission.allow());
                }
            }
            for (String subject : subjects) {
                assertFalse(subject.equals(">") || subject.startsWith("$JS.>") || subject.equals("$JS.API.>")
                        || subject.equals("$JS.API.STREAM.>") || subject.equals("$JS.API.CONSUMER.>"),
                        profile.label() + " grants " + subject);
            }
        }
    }

    @Test
    void endpointServeIsMintedOnlyThroughThePlaneEntry() {
        CotalException general = assertThrows(CotalException.class, () -> Creds.mint(signer, Identity.create(),
                CredentialProfile.ENDPOINT_SERVE, pin("i1")));
        assertEquals(ErrorCode.PERMISSION_DENIED, general.code());
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> Creds.mintPublicUserJwt(signer,
                Identity.create().id(), CredentialProfile.ENDPOINT_SERVE, MintOptions.builder().pin("i1")
                        .expiresInSeconds(60).build())).code());
        assertEquals("endpoint-serve", NatsJwt.decode(EndpointServeMint.mint(signer, Identity.create(), "tok", pin("i1")).jwt())
                .name());
        assertThrows(CotalException.class, () -> EndpointServeMint.mint(signer, Identity.create(), "a.b", pin("i1")));
        assertThrows(CotalException.class, () -> EndpointServeMint.mint(signer, Identity.create(), "tok", MintOptions.defaults()));
    }

    @Test
    void aPublicKeyIsSignedOnlyForTheAllowedProfilesAndWithABoundedExp() {
        String key = Identity.create().id();
        MintOptions bounded = MintOptions.builder().pin("mgr1").expiresInSeconds(600).build();
        String jwt = Creds.mintPublicUserJwt(signer, key, CredentialProfile.REMOTE_MANAGER, bounded);
        assertEquals(key, NatsJwt.decode(jwt).sub());
        assertTrue(NatsJwt.decode(jwt).exp() != null);
        assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class, () -> Creds.mintPublicUserJwt(signer, key,
                CredentialProfile.REMOTE_MANAGER, pin("mgr1"))).code());
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> Creds.mintPublicUserJwt(signer,
                key, CredentialProfile.ADMIN, MintOptions.builder().expiresInSeconds(60).build())).code());
        assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class, () -> Creds.mintPublicUserJwt(signer,
                broker.operatorPublicKey(), CredentialProfile.GOAL_WRITER, MintOptions.builder().expiresInSeconds(60).build()))
                .code());
    }

    @Test
    void lifetimesFollowTheFrozenTable() {
        assertEquals(Duration.ofSeconds(86_400), CredentialProfile.SUPERVISOR.lifetime().ttl().orElseThrow());
        assertEquals(Duration.ofSeconds(300), CredentialProfile.LIFECYCLE_EXECUTOR.lifetime().ttl().orElseThrow());
        assertEquals(Duration.ofSeconds(60), CredentialProfile.ENDPOINT_EVICTOR.lifetime().ttl().orElseThrow());
        assertEquals(Duration.ofSeconds(86_400), CredentialProfile.SESSION_CALLER.lifetime().ttl().orElseThrow());
        assertTrue(CredentialProfile.DEPLOYER.lifetime().ttl().isEmpty());
        assertTrue(CredentialProfile.CHANNEL_PURGER.lifetime().ttl().isEmpty());
    }
}
