package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    private final BearerIssuer issuer = BearerIssuer.load(PlaneFixture.provisioned("alpha"), "alpha", Clock.systemUTC());
    private final BearerVerifier verifier = new BearerVerifier("alpha", issuer.publicKey(), Clock.systemUTC());
    private final EndpointInstance weather = new EndpointInstance("weather", "0123456789abcdefghijklmnop");

    private BearerIssuer.Request request(Optional<String> view, Optional<EndpointInstance> serving) {
        return new BearerIssuer.Request(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "weathersvc"), List.of("chat"), new LifecycleUid(UID), new CredentialId(UID),
                Duration.ofMinutes(5), Optional.empty(), view, serving);
    }

    @Test
    void aServingBearerNamesItsInstanceAndVerifiesWithIt() {
        BearerClaims claims = verifier.verify(issuer.issue(request(Optional.of(EndpointInstance.SERVING_VIEW),
                Optional.of(weather))));
        assertEquals(Optional.of(EndpointInstance.SERVING_VIEW), claims.view());
        assertEquals(Optional.of(weather), claims.serving());
        BearerClaims plain = verifier.verify(issuer.issue(request(Optional.empty(), Optional.empty())));
        assertEquals(Optional.empty(), plain.serving());
    }

    @Test
    void theInstanceGoesWithTheServingViewOnly() {
        assertThrows(CotalException.class, () -> request(Optional.of(EndpointInstance.SERVING_VIEW), Optional.empty()));
        assertThrows(CotalException.class, () -> request(Optional.empty(), Optional.of(weather)));
        assertThrows(CotalException.class, () -> request(Optional.of("manager-caller"), Optional.of(weather)));
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
