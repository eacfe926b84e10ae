package ai.cotal.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code --flag value} arguments of one command: only the flags it names, each at most once,
 * each with a value. A problem is an {@link IllegalArgumentException} whose message is printed
 * above the usage (exit 2).
 */
final class Flags {
    private final Map<String, String> values;

    private Flags(Map<String, String> values) {
        this.values = values;
    }

    /**
     * The socket address a flag {@code name} gives as {@code value}: {@code PORT} (loopback) or
     * {@code HOST:PORT} ({@code [v6]:PORT} for IPv6), the host an IP address (names are not
     * resolved); an {@link IllegalArgumentException} naming the flag otherwise.
     */
    static java.net.InetSocketAddress address(String name, String value) {
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? null : value.substring(0, colon).replaceAll("^\\[(.*)]$", "$1");
        String port = colon < 0 ? value : value.substring(colon + 1);
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException(name + " must be PORT or HOST:PORT (a port number 0 to 65535)");
        }
        if (host == null) {
            return new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), Integer.parseInt(port));
        }
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:]+")) {
            throw new IllegalArgumentException(name + ": the host must be an IP address (names are not resolved)");
        }
        try {
            return new java.net.InetSocketAddress(java.net.InetAddress.getByName(host), Integer.parseInt(port));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(name + ": " + host + " is not an IP address");
        }
    }

    static Flags parse(List<String> args, Set<String> valued, Set<String> required) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (!valued.contains(flag)) {
                throw new IllegalArgumentException("unknown argument " + flag);
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            if (values.put(flag, args.get(++i)) != null) {
                throw new IllegalArgumentException(flag + " given twice");
            }
        }
        for (String flag : required) {
            if (!values.containsKey(flag)) {
                throw new IllegalArgumentException(flag + " is required");
            }
        }
        return new Flags(values);
    }

    String get(String flag) {
        return values.get(flag);
    }

    Optional<String> optional(String flag) {
        return Optional.ofNullable(values.get(flag));
    }

    /** A port: 0 to 65535. */
    int port(String flag, int otherwise) {
        String value = values.get(flag);
        if (value == null) {
            return otherwise;
        }
        if (!value.matches("[0-9]{1,5}") || Integer.parseInt(value) > 65535) {
            throw new IllegalArgumentException(flag + " must be a port number (0 to 65535)");
        }
        return Integer.parseInt(value);
    }
}
