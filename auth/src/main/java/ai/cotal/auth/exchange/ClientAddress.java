package ai.cotal.auth.exchange;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The client address a request's per-peer throttle is keyed on (SPEC §13.17). Without a trusted
 * proxy, or when the direct peer is not that proxy, it is the direct peer and
 * {@code X-Forwarded-For} is ignored entirely. From the trusted proxy, it is the right-most hop of
 * {@code X-Forwarded-For} (all such headers, in order, as one list) that is not the proxy itself:
 * the proxy appends the address it saw, so hops a client wrote sit to the left and are never
 * reached. When there is no such hop, or it is not an IP literal, the proxy's own address is the
 * answer: a broken header can only share the proxy's window, never open a fresh one. An IPv6
 * client is keyed by its /64 ({@link #key}): one holder of a /64 has billions of addresses, and
 * keying each one alone would let it step around every per-peer limit.
 */
final class ClientAddress {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private ClientAddress() {
    }

    /** The throttle key: {@link #key} of the client's address. */
    static String of(InetAddress direct, List<String> forwardedFor, Optional<InetAddress> trustedProxy) {
        return key(client(direct, forwardedFor, trustedProxy));
    }

    /**
     * The per-peer key of {@code address}: an IPv4 address as its literal, an IPv6 address as its
     * /64 ({@code 2001:db8:1:2::/64}), since one subscriber commonly holds a whole /64.
     */
    static String key(InetAddress address) {
        if (address instanceof java.net.Inet6Address) {
            byte[] prefix = java.util.Arrays.copyOf(address.getAddress(), 16);
            java.util.Arrays.fill(prefix, 8, 16, (byte) 0);
            try {
                return InetAddress.getByAddress(prefix).getHostAddress().replaceFirst("(:0)+$", "::") + "/64";
            } catch (UnknownHostException e) {
                throw new IllegalStateException("16 bytes are an IPv6 address", e);
            }
        }
        return address.getHostAddress();
    }

    private static InetAddress client(InetAddress direct, List<String> forwardedFor, Optional<InetAddress> trustedProxy) {
        if (trustedProxy.isEmpty() || !trustedProxy.get().equals(direct) || forwardedFor.isEmpty()) {
            return direct;
        }
        String joined = String.join(",", forwardedFor);
        String[] hops = joined.split(",", -1);
        for (int i = hops.length - 1; i >= 0; i--) {
            Optional<InetAddress> hop = literal(hops[i].trim());
            if (hop.isEmpty()) {
                return direct; // malformed: the proxy's own window
            }
            if (!hop.get().equals(direct)) {
                return hop.get();
            }
        }
        return direct;
    }

    /** An IPv4 or IPv6 literal (no host names: nothing is looked up), else empty. */
    static Optional<InetAddress> literal(String text) {
        String bare = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        boolean v4 = IPV4.matcher(bare).matches();
        if (!v4 && !(bare.contains(":") && IPV6.matcher(bare).matches())) {
            return Optional.empty();
        }
        if (v4) {
            for (String octet : bare.split("\\.")) {
                if (Integer.parseInt(octet) > 255) {
                    return Optional.empty(); // else the JDK would take it for a host name and look it up
                }
            }
        }
        try {
            return Optional.of(InetAddress.getByName(bare)); // a literal: parsed, never resolved
        } catch (UnknownHostException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
