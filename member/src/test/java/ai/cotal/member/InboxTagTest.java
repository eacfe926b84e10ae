package ai.cotal.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The connector's inbox tag is the authority's (SPEC §13.16): vectors taken from {@code InboxNonce.tag}
 * (this module cannot read auth). auth's {@code MemberSessionKeycloakBrokerTest} checks the rest end
 * to end: the callout admits a connect only under a nonce of its principal's tag.
 */
class InboxTagTest {
    @Test
    void theTagOfAPrincipalIsTheAuthoritysAndTheNonceCarriesIt() {
        assertEquals("cjl66t6fqwxmounm", InboxTag.tag("u_abcdefghijklmnopqrstuvwxyz", "laptop"));
        assertEquals("q26aprh5jrlughxc", InboxTag.tag("u_22222222222222222222222222", "desk_2"));
        assertEquals("mz5h52v64wejjve7", InboxTag.tag("u_7777777777aaaaaaaaaa777777", "a"));
        String nonce = InboxTag.fresh("u_abcdefghijklmnopqrstuvwxyz", "laptop");
        assertTrue(nonce.matches("cjl66t6fqwxmounm-[A-Za-z0-9_-]{16}"), nonce);
    }
}
