package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.EndpointInstance;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The exchange body's view and instance fields (SPEC §13.17): checked together, before any arm runs. */
class ServingExchangeRequestTest {
    private static final String IID = "0123456789abcdefghijklmnop";

    private static ExchangeArms.Request body(String view, String endpoint, String instanceId) {
        return new ExchangeArms.Request(null, "u_abcdefghijklmnopqrstuvwxyz", "svc", "secret", null, view, endpoint,
                instanceId, null, null);
    }

    private static String refusedField(ExchangeArms.Request request) {
        CotalException e = assertThrows(CotalException.class, request::serving);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        return e.getMessage();
    }

    @Test
    void theServingViewNamesItsInstanceAndNoOtherBodyDoes() {
        assertEquals(Optional.of(new EndpointInstance("weather", IID)),
                body(EndpointInstance.SERVING_VIEW, "weather", IID).serving());
        assertEquals(Optional.empty(), body(null, null, null).serving());
        assertEquals(Optional.empty(), body("manager-caller", null, null).serving());
        assertTrue(refusedField(body(EndpointInstance.SERVING_VIEW, "weather", null)).startsWith("instanceId"));
        assertTrue(refusedField(body(EndpointInstance.SERVING_VIEW, "Not A Label", IID)).startsWith("endpoint"));
        assertTrue(refusedField(body(null, "weather", null)).startsWith("endpoint"));
        assertTrue(refusedField(body("manager-caller", null, IID)).startsWith("instanceId"));
        assertTrue(refusedField(body("root", null, null)).startsWith("view"));
    }
}
