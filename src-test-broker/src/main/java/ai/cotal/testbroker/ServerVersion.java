package ai.cotal.testbroker;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A nats-server version ({@code major.minor.patch}) and the floor this project's tests need.
 * Immutable and safe to share.
 */
public record ServerVersion(int major, int minor, int patch) implements Comparable<ServerVersion> {
    /** The oldest nats-server the tests accept: KV per-message TTL and the stream flags the stores use. */
    public static final ServerVersion MINIMUM = new ServerVersion(2, 12, 0);

    /** The command that installs a suitable binary into the project cache. */
    public static final String INSTALL_HINT = "scripts/install-nats-server";

    private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)\\.(\\d+)");

    /** Parses the first {@code X.Y.Z} in {@code text} (e.g. {@code "nats-server: v2.15.1"}). */
    public static ServerVersion parse(String text) {
        Matcher m = VERSION.matcher(text == null ? "" : text);
        if (!m.find()) {
            throw new BrokerException("no nats-server version in '" + text + "'");
        }
        return new ServerVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)));
    }

    public boolean atLeast(ServerVersion other) {
        return compareTo(other) >= 0;
    }

    @Override
    public int compareTo(ServerVersion o) {
        if (major != o.major) {
            return Integer.compare(major, o.major);
        }
        if (minor != o.minor) {
            return Integer.compare(minor, o.minor);
        }
        return Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
