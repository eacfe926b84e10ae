package ai.cotal.testbroker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Where a test broker comes from, chosen in this order:
 * <ol>
 *   <li>{@code COTAL_NATS_SERVER} names a binary: that binary, always (an explicit choice wins);</li>
 *   <li>{@code COTAL_BROKER_BACKEND=container}, or a Docker engine answers: a Testcontainers
 *       {@code nats} image ({@code COTAL_NATS_IMAGE}, default {@value #DEFAULT_IMAGE});</li>
 *   <li>the project cache {@code .broker/bin/nats-server}, looked for in the working directory
 *       and each of its parents (Maven runs tests in a module directory);</li>
 *   <li>{@code nats-server} on {@code PATH}.</li>
 * </ol>
 * {@code COTAL_BROKER_BACKEND=local} skips the Docker probe. Nothing found is a
 * {@link BrokerException} naming the install command.
 *
 * @param kind    the backend
 * @param binary  the local binary ({@link Kind#LOCAL} only)
 * @param image   the container image ({@link Kind#CONTAINER} only)
 */
public record BackendChoice(Kind kind, Path binary, String image) {
    public static final String DEFAULT_IMAGE = "nats:2.12-alpine";

    /** The two ways a test broker runs. */
    public enum Kind { LOCAL, CONTAINER }

    public BackendChoice {
        Objects.requireNonNull(kind, "kind");
    }

    /** Chooses from the real process environment and working directory. */
    public static BackendChoice detect() {
        return choose(System.getenv(), Path.of("").toAbsolutePath(), DockerProbe::dockerAvailable);
    }

    /**
     * Chooses from the given environment, starting directory and Docker probe (called at most once,
     * and only when no explicit choice was made).
     */
    public static BackendChoice choose(Map<String, String> env, Path start, BooleanSupplier dockerAvailable) {
        String explicit = env.get("COTAL_NATS_SERVER");
        if (explicit != null && !explicit.isBlank()) {
            return local(Path.of(explicit));
        }
        String forced = env.getOrDefault("COTAL_BROKER_BACKEND", "");
        String image = env.getOrDefault("COTAL_NATS_IMAGE", DEFAULT_IMAGE);
        if (forced.equals("container")) {
            return new BackendChoice(Kind.CONTAINER, null, image);
        }
        if (!forced.isEmpty() && !forced.equals("local")) {
            throw new BrokerException("COTAL_BROKER_BACKEND must be 'local' or 'container', not '" + forced + "'");
        }
        if (forced.isEmpty() && dockerAvailable.getAsBoolean()) {
            return new BackendChoice(Kind.CONTAINER, null, image);
        }
        Optional<Path> cached = projectCache(start);
        if (cached.isPresent()) {
            return local(cached.get());
        }
        Optional<Path> onPath = onPath(env.getOrDefault("PATH", ""));
        if (onPath.isPresent()) {
            return local(onPath.get());
        }
        throw new BrokerException("no nats-server found (COTAL_NATS_SERVER unset, no .broker/bin/nats-server above "
                + start + ", none on PATH): run " + ServerVersion.INSTALL_HINT);
    }

    private static BackendChoice local(Path binary) {
        return new BackendChoice(Kind.LOCAL, binary, null);
    }

    private static Optional<Path> projectCache(Path start) {
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(".broker").resolve("bin").resolve("nats-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> onPath(String path) {
        for (String entry : path.split(java.io.File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(entry, "nats-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
