package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.internal.plane.BearerVerifier;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The serving bearer (SPEC §13.14, §13.17): the view names its instance, and only that view does. */
class ServingBearerTest {
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private static final Principal SERVICE = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "weathersvc");
    private final BearerIssuer issuer = BearerIssuer.load(PlaneFixture.provisioned("alpha"), "alpha", Clock.systemUTC());
    private final BearerVerifier verifier = new BearerVerifier("alpha", issuer.publicKey(), Clock.systemUTC());
    private final EndpointInstance weather = new EndpointInstance("weather", "0123456789abcdefghijklmnop");

    @Test
    void aServingBearerNamesItsInstanceAndVerifiesWithIt() {
        BearerClaims claims = verifier.verify(issuer.issue(BearerRequest.serving(SERVICE, new LifecycleUid(UID),
                new CredentialId(UID), Duration.ofMinutes(5), weather)));
        assertEquals(Optional.of(EndpointInstance.SERVING_VIEW), claims.view());
        assertEquals(Optional.of(weather), claims.serving());
        BearerClaims plain = verifier.verify(issuer.issue(BearerRequest.member(SERVICE, List.of("chat"),
                new LifecycleUid(UID), new CredentialId(UID), Duration.ofMinutes(5))));
        assertEquals(Optional.empty(), plain.serving());
    }

    @Test
    void aServingRequestWithoutItsInstanceIsRefusedNamingIt() {
        CotalException refused = assertThrows(CotalException.class, () -> BearerRequest.serving(SERVICE,
                new LifecycleUid(UID), new CredentialId(UID), Duration.ofMinutes(5), null));
        assertEquals(ErrorCode.BAD_REQUEST, refused.code());
        assertTrue(refused.getMessage().startsWith("instance"), refused.getMessage());
    }

    @Test
    void anInstanceFollowsTheHostGrammarsAndMapsToItsSubjects() {
        CotalException bad = assertThrows(CotalException.class, () -> new EndpointInstance("Weather!", UID));
        assertEquals(ErrorCode.BAD_REQUEST, bad.code());
        assertTrue(bad.getMessage().startsWith("endpoint"), bad.getMessage());
        assertTrue(assertThrows(CotalException.class, () -> new EndpointInstance("weather", "short")).getMessage()
                .startsWith("instanceId"));
        assertEquals("cotal.alpha.svc.ep.weather.0123456789abcdefghijklmnop", weather.subjectStem("cotal.alpha"));
    }
}
