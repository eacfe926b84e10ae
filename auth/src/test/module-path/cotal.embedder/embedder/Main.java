package embedder;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/**
 * Opens a plane of its own trust chain on the broker the test starts from the configuration this
 * program renders, reporting to a sink of its own, and closes it. Its lines on stdout: {@code config
 * <file>} once the broker's configuration is written (it then reads the broker's URL from stdin),
 * then {@code ok}. Exits 1 naming what failed.
 */
public final class Main {
    /** Keeps every gauge it is given, by name and tags. */
    static final class Gauges implements MeterSink {
        final Map<String, DoubleSupplier> gauges = new ConcurrentHashMap<>();

        @Override
        public Counter counter(String name, Map<String, String> tags) {
            return () -> { };
        }

        @Override
        public Timer timer(String name, Map<String, String> tags) {
            return nanos -> { };
        }

        @Override
        public void gauge(String name, Map<String, String> tags, String baseUnit, DoubleSupplier value) {
            gauges.put(name + tags, value);
        }

        @Override
        public void functionCounter(String name, Map<String, String> tags, DoubleSupplier total) {
        }

        double read(String key) {
            DoubleSupplier gauge = gauges.get(key);
            return gauge == null ? -1 : gauge.getAsDouble();
        }
    }

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        require(ModuleLayer.boot().findModule("micrometer.core").isEmpty(), "micrometer.core is not in the boot layer");
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            require(false, "Micrometer cannot be loaded");
        } catch (ClassNotFoundException expected) {
            // the point of the run
        }
        Path dir = Path.of(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        BrokerAuth broker = auth.broker();
        SpaceAccountAuth space = auth.account();
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, CalloutAuth.create("alpha", broker, space.accountPublicKey(), clock)).write(store);
        Path storeDir = Path.of(in.readLine());
        Path config = Files.writeString(dir.resolve("nats.conf"), ServerConfig.render(broker, List.of(space),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(storeDir).build()));
        System.out.println("config " + config);
        String url = in.readLine();
        Gauges sink = new Gauges();
        AuthPlaneOptions options = AuthPlaneOptions.builder().server(url).space("alpha")
                .stateDir(Files.createDirectories(dir.resolve("state"))).secretStore(store)
                .signer(auth.strip()).clock(clock).meterSink(sink).build();
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(options)) {
            require(plane.health().state() == PlaneHealth.State.OPEN, "the plane is open");
            require(sink.read("cotal.auth.plane.state{state=open}") == 1, "the open plane is in the state gauge");
        }
        require(sink.read("cotal.auth.plane.state{state=open}") == 0, "the closed plane left the state gauge");
        System.out.println("ok");
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            System.out.println("failed: " + what);
            System.exit(1);
        }
    }
}
