package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.Views;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The stored records' states are enums: written by their wire names, an unknown one is data-loss. */
class RowsTest {
    private static final String ID = "abcdefghijklmnopqrstuvwxyz";

    @Test
    void statesAreStoredByTheirWireNames() {
        String gate = new String(Rows.write(new Rows.Gate(1, Views.GateState.RETIRED, 3, 7, ID, null, null)),
                StandardCharsets.UTF_8);
        assertEquals("{\"v\":1,\"state\":\"retired\",\"generation\":3,\"registrationRevision\":7,\"operationId\":\""
                + ID + "\"}", gate);
        String asg = new String(Rows.write(new Rows.Assignment(1, ID, Views.AssignmentState.FENCED, null)), StandardCharsets.UTF_8);
        assertEquals("{\"v\":1,\"uid\":\"" + ID + "\",\"state\":\"fenced\"}", asg);
        assertEquals(Views.GateState.RETIRED, Rows.read(gate.getBytes(StandardCharsets.UTF_8), Rows.Gate.class, "k").state());
    }

    @Test
    void aStoredRowWithAnUnknownStateIsDataLossNamingTheFieldNotTheValue() {
        String hostile = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI";
        for (String state : new String[] {hostile, "RETIRED", "Retired", "", "retire", "2"}) {
            byte[] row = ("{\"v\":1,\"state\":\"" + state + "\",\"generation\":3,\"registrationRevision\":7,"
                    + "\"operationId\":\"" + ID + "\"}").getBytes(StandardCharsets.UTF_8);
            CotalException e = assertThrows(CotalException.class, () -> Rows.read(row, Rows.Gate.class, "epgate.e.i"),
                    state);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("epgate.e.i.state"), e.getMessage());
            assertFalse(!state.isEmpty() && e.getMessage().contains(state), e.getMessage());
        }
        byte[] number = ("{\"v\":1,\"uid\":\"" + ID + "\",\"state\":0}").getBytes(StandardCharsets.UTF_8);
        assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class,
                () -> Rows.read(number, Rows.Assignment.class, "k")).code(), "an enum's index is no state");
        byte[] missing = ("{\"v\":1,\"uid\":\"" + ID + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class,
                () -> Rows.read(missing, Rows.Assignment.class, "k")).code(), "a missing state");
    }
}
