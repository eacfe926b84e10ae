package ai.cotal.testbroker.oidc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real Keycloak server for tests: the distribution {@code org.keycloak:keycloak-quarkus-dist}
 * ({@value #VERSION}, a {@code tar.gz} Maven fetches into the local repository) unpacked into a
 * directory of its own and started in development mode on loopback, with a JDK of release 21 or
 * later. Realms, clients and users are made through the admin REST API ({@link #realm(String)}):
 *
 * <pre>{@code
 * try (KeycloakServer keycloak = KeycloakServer.start()) {
 *     KeycloakRealm realm = keycloak.realm("cotal");
 *     realm.client("cotal-space");
 *     realm.user("alice", "alice-password");
 *     String idToken = realm.tokens("cotal-space", "alice", "alice-password").idToken();
 * }
 * }</pre>
 *
 * <p>Every request goes through a loopback front this class runs ({@link #url()}): Keycloak's
 * hostname is the front's, so tokens' {@code iss} and the JWKS address name it, {@link
 * #jwksFetches()} counts the JWKS requests a relying party makes, and {@link #down(boolean)} makes
 * the provider unreachable without stopping it.
 *
 * <p>Where things come from: the distribution from the system property {@code cotal.keycloak.dist}
 * (a {@code .tar.gz}), else {@code <local repository>/org/keycloak/keycloak-quarkus-dist/<version>/};
 * the JDK from {@code cotal.keycloak.java} (a JDK's home), else this JVM when it is release 21 or
 * later, else the newest JDK of release 21 or later under {@code /usr/lib/jvm}. A missing one is an
 * {@link IllegalStateException} saying which and how to provide it. The start takes 30 to 80 s on
 * two cores; {@link KeycloakExtension} shares one server across a test run.
 *
 * <p>{@link #close()} stops the server by its own process id (a graceful stop, then a forced one
 * after 30 s) and deletes its directory. Thread-safe. A test tool: the admin password is random and
 * never printed; do not use it for anything else.
 */
public final class KeycloakServer implements AutoCloseable {
    /** The Keycloak release this fixture runs by default. */
    public static final String VERSION = "26.7.3";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(240);

    private final Path home;
    private final Process process;
    private final KeycloakFront front;
    private final KeycloakAdmin admin;
    private final Path log;
    /** Stops Keycloak when the test JVM exits without closing it (a killed fork, an interrupted run). */
    private final Thread stopAtExit = new Thread(this::stop, "keycloak-stop-at-exit");

    private KeycloakServer(Path home, Process process, KeycloakFront front, KeycloakAdmin admin, Path log) {
        this.home = home;
        this.process = process;
        this.front = front;
        this.admin = admin;
        this.log = log;
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /**
     * Unpacks the distribution into a fresh temporary directory and starts Keycloak, answering once
     * its master realm answers.
     *
     * @throws IllegalStateException when the distribution or a JDK 21+ is missing, or Keycloak does
     *     not start within 240 s (the message carries the tail of its log)
     */
    public static KeycloakServer start() {
        Path dist = distribution();
        Path java = javaHome();
        KeycloakFront front = null;
        Path home = null;
        try {
            home = Files.createTempDirectory("cotal-keycloak-");
            run(List.of("tar", "-xzf", dist.toString(), "-C", home.toString(), "--strip-components=1"));
            front = new KeycloakFront();
            int http = freePort();
            int management = freePort();
            String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
            Path log = home.resolve("keycloak.log");
            ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/kc.sh").toString(), "start-dev",
                    "--http-host=127.0.0.1", "--http-port=" + http, "--http-management-port=" + management,
                    "--hostname=http://127.0.0.1:" + front.port())
                    .directory(home.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().put("JAVA_HOME", java.toString());
            builder.environment().put("KC_BOOTSTRAP_ADMIN_USERNAME", "admin");
            builder.environment().put("KC_BOOTSTRAP_ADMIN_PASSWORD", password);
            Process process = builder.start();
            front.backend(http);
            KeycloakServer server = new KeycloakServer(home, process, front,
                    new KeycloakAdmin("http://127.0.0.1:" + front.port(), password), log);
            server.awaitReady();
            return server;
        } catch (IOException e) {
            stopQuietly(front, home);
            throw new UncheckedIOException("Keycloak could not be started", e);
        } catch (RuntimeException e) {
            stopQuietly(front, home);
            throw e;
        }
    }

    /** The base URL every client uses ({@code http://127.0.0.1:<port>}); a realm's issuer is {@code <url>/realms/<name>}. */
    public String url() {
        return admin.base();
    }

    /** Creates the realm {@code name} (enabled, default settings) and answers its handle. */
    public KeycloakRealm realm(String name) {
        return KeycloakRealm.create(admin, name);
    }

    /** How many JWKS requests reached the provider through its front, for every realm. */
    public int jwksFetches() {
        return front.jwksFetches();
    }

    /** While {@code true}, every request is answered 503 by the front and none reaches Keycloak. */
    public void down(boolean down) {
        front.down(down);
    }

    /** The Keycloak process's id. */
    public long pid() {
        return process.pid();
    }

    private void awaitReady() {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + "/realms/master/.well-known/openid-configuration"))
                .timeout(Duration.ofSeconds(5)).build();
        while (true) {
            if (!process.isAlive()) {
                String tail = tail();
                close();
                throw new IllegalStateException("Keycloak exited while starting; its log ends:\n" + tail);
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted while Keycloak was starting", e);
            }
            if (Instant.now().isAfter(deadline)) {
                String tail = tail();
                close();
                throw new IllegalStateException("Keycloak did not answer within " + START_TIMEOUT.toSeconds()
                        + " s; its log ends:\n" + tail);
            }
            try {
                process.waitFor(500, java.util.concurrent.TimeUnit.MILLISECONDS); // the start's poll interval
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops Keycloak by its process id and deletes its directory; idempotent. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs stop() itself
        }
        stop();
    }

    private void stop() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        stopQuietly(front, home);
    }

    private static void stopQuietly(KeycloakFront front, Path home) {
        if (front != null) {
            front.close();
        }
        if (home != null) {
            try (Stream<Path> walk = Files.walk(home)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is not an error of the test
            }
        }
    }

    static Path distribution() {
        String given = System.getProperty("cotal.keycloak.dist");
        Path dist = given != null && !given.isBlank() ? Paths.get(given)
                : localRepository().resolve("org/keycloak/keycloak-quarkus-dist/" + VERSION
                        + "/keycloak-quarkus-dist-" + VERSION + ".tar.gz");
        if (!Files.isRegularFile(dist)) {
            throw new IllegalStateException("the Keycloak distribution is not at " + dist + ": fetch it with `mvn"
                    + " dependency:get -Dartifact=org.keycloak:keycloak-quarkus-dist:" + VERSION + ":tar.gz"
                    + " -Dtransitive=false` (a module that declares it as a test dependency fetches it) or set"
                    + " -Dcotal.keycloak.dist=<path of the .tar.gz>");
        }
        return dist;
    }

    private static Path localRepository() {
        String repo = System.getProperty("maven.repo.local");
        return repo != null && !repo.isBlank() ? Paths.get(repo)
                : Paths.get(System.getProperty("user.home"), ".m2", "repository");
    }

    static Path javaHome() {
        String given = System.getProperty("cotal.keycloak.java");
        if (given != null && !given.isBlank()) {
            return Paths.get(given);
        }
        if (Runtime.version().feature() >= 21) {
            return Paths.get(System.getProperty("java.home"));
        }
        List<Path> candidates = new ArrayList<>();
        Path jvms = Paths.get("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> list = Files.list(jvms)) {
                list.map(KeycloakServer::realPath).filter(p -> Files.isExecutable(p.resolve("bin/java")))
                        .filter(p -> feature(p).orElse(0) >= 21).distinct().forEach(candidates::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return candidates.stream().max(Comparator.comparingInt(p -> feature(p).orElse(0)))
                .orElseThrow(() -> new IllegalStateException("Keycloak needs a JDK of release 21 or later: none under"
                        + " /usr/lib/jvm and this JVM is " + Runtime.version().feature()
                        + "; set -Dcotal.keycloak.java=<a JDK 21+ home>"));
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    /** A JDK's feature release from its {@code release} file ({@code JAVA_VERSION="25.0.1"}). */
    private static Optional<Integer> feature(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Optional.of(Integer.parseInt(v.split("[.+-]")[0]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }
}
