package ai.cotal.testbroker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Where a test broker comes from. {@link #detect()} looks, in this order:
 * <ol>
 *   <li>an explicit binary: the system property {@value #BINARY_PROPERTY}, else the environment
 *       variable {@value #BINARY_VARIABLE}; that binary, always (it is not second-guessed);</li>
 *   <li>an explicit backend: {@value #BACKEND_PROPERTY} or {@value #BACKEND_VARIABLE} set to
 *       {@code container} runs a Testcontainers {@code nats} image ({@value #IMAGE_VARIABLE},
 *       default {@value #DEFAULT_IMAGE}); {@code local} never asks Docker;</li>
 *   <li>{@code nats-server} on {@code PATH};</li>
 *   <li>the project cache {@code .broker/bin/nats-server} (what {@code scripts/install-nats-server}
 *       writes), in the working directory or one of its parents (Maven runs tests in a module
 *       directory);</li>
 *   <li>a Docker engine that answers ({@link DockerProbe}: asked only when some Docker endpoint
 *       exists, never guessed).</li>
 * </ol>
 * A found binary older than {@link ServerVersion#MINIMUM} is passed over and named in the failure.
 * When nothing fits, a {@link BrokerException} lists every place looked at and how to install a
 * binary. Immutable.
 *
 * @param kind    the backend
 * @param binary  the local binary ({@link Kind#LOCAL} only)
 * @param image   the container image ({@link Kind#CONTAINER} only)
 */
public record BackendChoice(Kind kind, Path binary, String image) {
    /** The image a container backend runs unless {@value #IMAGE_VARIABLE} names another. */
    public static final String DEFAULT_IMAGE = "nats:2.12-alpine";
    /** The system property naming the nats-server binary; it wins over {@value #BINARY_VARIABLE}. */
    public static final String BINARY_PROPERTY = "cotal.nats.server";
    /** The environment variable naming the nats-server binary. */
    public static final String BINARY_VARIABLE = "COTAL_NATS_SERVER";
    /** The system property forcing a backend ({@code local} or {@code container}). */
    public static final String BACKEND_PROPERTY = "cotal.broker.backend";
    /** The environment variable forcing a backend ({@code local} or {@code container}). */
    public static final String BACKEND_VARIABLE = "COTAL_BROKER_BACKEND";
    /** The environment variable naming the container image. */
    public static final String IMAGE_VARIABLE = "COTAL_NATS_IMAGE";

    /** How to get a binary, for the failure message. */
    static final String HOW_TO_INSTALL = "install nats-server >= " + ServerVersion.MINIMUM
            + " on PATH (a release from https://github.com/nats-io/nats-server/releases, or"
            + " `go install github.com/nats-io/nats-server/v2@latest`), or in the Cotal tree run "
            + ServerVersion.INSTALL_HINT + ", or name a binary with -D" + BINARY_PROPERTY + "=/path/to/nats-server";

    /** The two ways a test broker runs. */
    public enum Kind {
        /** A nats-server binary run as a child process on loopback. */
        LOCAL,
        /** A nats-server container run by Testcontainers. */
        CONTAINER
    }

    /** Checks that {@code kind} is given. */
    public BackendChoice {
        Objects.requireNonNull(kind, "kind");
    }

    /**
     * Chooses from this JVM's system properties, its environment and its working directory.
     *
     * @throws BrokerException when no binary or engine is found (the message lists where it looked)
     */
    public static BackendChoice detect() {
        return choose(System.getProperties(), System.getenv(), Path.of("").toAbsolutePath(),
                DockerProbe::dockerAvailable);
    }

    /**
     * Chooses from the given system properties, environment, starting directory and Docker probe
     * (called at most once, and only when no binary was found and no backend was forced).
     *
     * @throws BrokerException when nothing is found, or a forced backend is neither {@code local}
     *         nor {@code container}
     */
    public static BackendChoice choose(Map<?, ?> properties, Map<String, String> env, Path start,
            BooleanSupplier dockerAvailable) {
        String explicit = setting(properties, BINARY_PROPERTY, env, BINARY_VARIABLE);
        if (!explicit.isEmpty()) {
            return local(Path.of(explicit));
        }
        String forced = setting(properties, BACKEND_PROPERTY, env, BACKEND_VARIABLE);
        String image = env.getOrDefault(IMAGE_VARIABLE, DEFAULT_IMAGE);
        if (forced.equals("container")) {
            return new BackendChoice(Kind.CONTAINER, null, image);
        }
        if (!forced.isEmpty() && !forced.equals("local")) {
            throw new BrokerException(BACKEND_VARIABLE + " (or -D" + BACKEND_PROPERTY
                    + ") must be 'local' or 'container', not '" + forced + "'");
        }
        List<String> looked = new ArrayList<>();
        looked.add("-D" + BINARY_PROPERTY + " and " + BINARY_VARIABLE + " (both unset)");
        Set<Path> candidates = new LinkedHashSet<>(); // a directory twice on PATH is looked at once
        for (String entry : env.getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                candidates.add(Path.of(entry, "nats-server"));
            }
        }
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            candidates.add(dir.resolve(".broker").resolve("bin").resolve("nats-server"));
        }
        for (Path candidate : candidates) {
            Optional<String> refusal = usable(candidate);
            if (refusal.isEmpty()) {
                return local(candidate);
            }
            looked.add(candidate + " (" + refusal.get() + ")");
        }
        if (forced.isEmpty()) {
            if (dockerAvailable.getAsBoolean()) {
                return new BackendChoice(Kind.CONTAINER, null, image);
            }
            looked.add("a Docker engine (none answers)");
        } else {
            looked.add("no Docker engine (" + BACKEND_VARIABLE + "=local)");
        }
        throw new BrokerException("no nats-server found; looked at:\n  " + String.join("\n  ", looked)
                + "\nTo fix: " + HOW_TO_INSTALL);
    }

    /** Empty when {@code candidate} is an executable nats-server recent enough, else why not. */
    private static Optional<String> usable(Path candidate) {
        if (!Files.isRegularFile(candidate)) {
            return Optional.of("absent");
        }
        if (!Files.isExecutable(candidate)) {
            return Optional.of("not executable");
        }
        try {
            ServerVersion version = LocalBrokerRuntime.version(candidate);
            return version.atLeast(ServerVersion.MINIMUM) ? Optional.empty()
                    : Optional.of("version " + version + ", older than " + ServerVersion.MINIMUM);
        } catch (BrokerException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static String setting(Map<?, ?> properties, String property, Map<String, String> env, String variable) {
        Object fromProperty = properties.get(property);
        if (fromProperty instanceof String value && !value.isBlank()) {
            return value.trim();
        }
        String fromEnv = env.get(variable);
        return fromEnv == null ? "" : fromEnv.trim();
    }

    private static BackendChoice local(Path binary) {
        return new BackendChoice(Kind.LOCAL, binary, null);
    }
}
