package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Per-peer keys (SPEC §13.17): IPv4 by address, IPv6 by its /64, through a trusted proxy too. */
class ClientAddressTest {
    private static InetAddress ip(String literal) {
        return ClientAddress.literal(literal).orElseThrow();
    }

    @Test
    void anIpv6ClientIsKeyedByItsSlash64AndAnIpv4ClientByItsAddress() {
        assertEquals("2001:db8:1:2::/64", ClientAddress.key(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")));
        assertEquals(ClientAddress.key(ip("2001:db8:1:2::1")), ClientAddress.key(ip("2001:db8:1:2:ffff::9")),
                "two addresses of one /64 share a window and a connection count");
        assertNotEquals(ClientAddress.key(ip("2001:db8:1:2::1")), ClientAddress.key(ip("2001:db8:1:3::1")));
        assertEquals("192.0.2.7", ClientAddress.key(ip("192.0.2.7")));
        InetAddress proxy = ip("192.0.2.1");
        assertEquals("2001:db8:1:2::/64", ClientAddress.of(proxy, List.of("2001:db8:1:2::42"), Optional.of(proxy)));
        assertEquals("192.0.2.9", ClientAddress.of(ip("192.0.2.9"), List.of("2001:db8:1:2::42"), Optional.of(proxy)),
                "a header from a peer that is not the proxy is ignored");
    }
}
