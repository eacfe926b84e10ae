package ai.cotal.auth.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.servicehost.HostJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The field-name mask (SPEC §2) has two copies, one per closed parser ({@code service-host} depends
 * on Jackson only): this holds them to one rule.
 */
class FieldNameRuleTest {
    @Test
    void bothParsersMaskExactlyTheSameNames() {
        List<String> names = new ArrayList<>(List.of("", "kid", "a.b", "x".repeat(31), "x".repeat(32), "x".repeat(64),
                "x".repeat(65), "$".repeat(40), "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI",
                "line\nbreak", "é"));
        Random random = new Random(16_7);
        String alphabet = "abcXYZ0189_-$.\n/";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder name = new StringBuilder();
            int length = random.nextInt(80);
            for (int j = 0; j < length; j++) {
                name.append(alphabet.charAt(random.nextInt(random.nextInt(8) == 0 ? alphabet.length() : 8)));
            }
            names.add(name.toString());
        }
        names.add(null);
        for (String name : names) {
            assertEquals(ClosedJson.fieldName(name), HostJson.fieldName(name), String.valueOf(name));
        }
    }
}
