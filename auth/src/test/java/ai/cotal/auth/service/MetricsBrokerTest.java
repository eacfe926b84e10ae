package ai.cotal.auth.service;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The meters of SPEC §13.21 on the real broker: the exact counts of what a stock service did
 * (admitted and refused connects, exchanges, invocations, refusals), and tag values drawn only from
 * the closed sets, with no id, token, nonce or path among them.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class MetricsBrokerTest {
    private final MeteredService f = new MeteredService();

    @TempDir
    Path stateDir;

    /** Every counter of the registry as {@code name{k=v,...}} → count; only the counters that counted. */
    private static Map<String, Double> counters(SimpleMeterRegistry registry) {
        Map<String, Double> out = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            if (meter instanceof Counter counter && counter.count() > 0) {
                out.put(id(meter), counter.count());
            }
        }
        return out;
    }

    private static String id(Meter meter) {
        return meter.getId().getName() + meter.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static double gauge(SimpleMeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    @Test
    void theCountersHoldExactlyWhatTheServiceDid(NatsBrokers brokers) throws Exception {
        NatsBroker nats = f.broker(brokers);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (AuthService service = f.start(nats, stateDir, registry, false)) {
            f.drive(nats, service, stateDir);
            Map<String, Double> expected = new TreeMap<>(Map.ofEntries(
                    Map.entry("cotal.auth.http.requests{face=loopback,route=exchange,status=200}", 2.0),
                    Map.entry("cotal.auth.http.requests{face=loopback,route=exchange,status=400}", 1.0),
                    Map.entry("cotal.auth.http.requests{face=loopback,route=exchange,status=401}", 31.0),
                    Map.entry("cotal.auth.http.requests{face=loopback,route=exchange,status=429}", 2.0),
                    Map.entry("cotal.auth.http.requests{face=loopback,route=health,status=200}", 1.0),
                    Map.entry("cotal.auth.http.throttled{face=loopback,window=capability}", 1.0),
                    Map.entry("cotal.auth.budget.refusals{kind=mint,limit=principal}", 1.0),
                    Map.entry("cotal.auth.callout.decisions{code=none,outcome=admitted,reason=admitted}", 1.0),
                    Map.entry("cotal.auth.callout.decisions{code=unauthenticated,outcome=refused,reason=no-bearer}", 1.0),
                    Map.entry("cotal.auth.callout.decisions{code=unauthenticated,outcome=refused,reason=bearer}", 1.0),
                    Map.entry("cotal.auth.callout.decisions{code=permission-denied,outcome=refused,reason=nonce}", 1.0),
                    Map.entry("cotal.auth.endpoint.invocations{operation=register,status=pending}", 1.0),
                    Map.entry("cotal.auth.endpoint.invocations{operation=decide,status=completed}", 1.0),
                    Map.entry("cotal.auth.endpoint.invocations{operation=register,status=unsupported}", 1.0)));
            assertEquals(expected, counters(registry), "every counter, and only these, counted exactly this");

            Timer admitted = registry.get("cotal.auth.callout.latency").tags("outcome", "admitted").timer();
            assertEquals(1, admitted.count());
            assertEquals(3, registry.get("cotal.auth.callout.latency").tags("outcome", "refused").timer().count());
            assertEquals(2, registry.get("cotal.auth.exchange.latency").tags("face", "loopback", "outcome", "issued")
                    .timer().count());
            assertEquals(34, registry.get("cotal.auth.exchange.latency").tags("face", "loopback", "outcome", "refused")
                    .timer().count());
            assertTrue(admitted.takeSnapshot().percentileValues().length == 3, "p50, p95 and p99 are published");

            assertEquals(1, gauge(registry, "cotal.auth.plane.state", "state", "open"));
            assertEquals(0, gauge(registry, "cotal.auth.plane.state", "state", "fenced"));
            assertEquals(service.plane().connections().size(), gauge(registry, "cotal.auth.plane.connections",
                    "status", "connected"), "every plane connection is connected");
            assertEquals(1, gauge(registry, "cotal.auth.callout.answering"));
            // the last answer's write completes on the server just after the client has read it
            long deadline = System.currentTimeMillis() + 5_000;
            while (gauge(registry, "cotal.auth.http.in.flight", "face", "loopback") > 0
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10); // polling the gauge: the write's completion has no event of its own
            }
            assertEquals(0, gauge(registry, "cotal.auth.http.in.flight", "face", "loopback"), "every call ended");
            double authFill = gauge(registry, "cotal.auth.store.fill", "store", "auth");
            assertTrue(authFill > 0 && authFill < 0.8, "the auth store holds the rows written, under its bound: " + authFill);
            assertTrue(gauge(registry, "cotal.auth.store.limit", "store", "auth") > 0, "the auth store is bounded");
            for (FunctionCounter cut : registry.get("cotal.auth.http.connections.cut").functionCounters()) {
                assertEquals(0, cut.count(), "no connection was cut: " + id(cut));
            }
            assertTrue(registry.getMeters().stream().allMatch(m -> m.getId().getTag("space") == null),
                    "no meter names the space without the opt-in");
            for (Runnable withoutRegistry : List.<Runnable>of(
                    () -> ai.cotal.auth.internal.callout.CalloutOptions.builder().server(nats.url()).callout(f.callout)
                            .plane(((AuthorityPlaneImpl) service.plane()).calloutAuthority()).signer(f.auth.strip()).meterSpaceTag(true).build(),
                    () -> ai.cotal.auth.exchange.ExchangeOptions.builder().plane(service.plane()).stateDir(stateDir)
                            .meterSpaceTag(true).build(),
                    () -> StockPlane.options(nats.url(), "alpha", stateDir, f.store).meterSpaceTag(true).build())) {
                CotalException refused = assertThrows(CotalException.class, withoutRegistry::run);
                assertEquals(ErrorCode.BAD_REQUEST, refused.code());
                assertTrue(refused.getMessage().startsWith("meterSpaceTag: needs a meterSink"), refused.getMessage());
            }
        }
        assertTrue(registry.find("cotal.auth.plane.state").gauges().stream().allMatch(g -> g.value() == 0),
                "a closed plane leaves the state gauge");
        assertEquals(0, gauge(registry, "cotal.auth.callout.answering"), "a closed responder leaves the gauge");
    }

    /** The closed tag values of SPEC §13.21, per meter; {@code space} is checked apart. */
    private static final Set<String> FACES = Set.of("loopback", "public");
    private static final Set<String> STORES = Set.of("auth", "issued", "accepted");
    private static final Set<String> CODES = Set.of("none", "bad-request", "permission-denied", "unauthenticated",
            "not-found", "already-exists", "conflict", "failed-precondition", "deadline-exceeded", "unavailable",
            "unimplemented", "resource-exhausted", "data-loss", "internal");
    private static final Set<String> HOST_STATUSES = Set.of("pending", "held", "refused", "denied", "completed", "granted",
            "unsupported");
    private static final Map<String, Map<String, Set<String>>> CATALOGUE = Map.ofEntries(
            Map.entry("cotal.auth.callout.decisions", Map.of("outcome", Set.of("admitted", "refused", "dropped"),
                    "reason", Set.of("admitted", "unsealed", "unverified", "foreign-server", "overflow", "no-bearer", "bearer",
                            "connect", "nonce", "endpoint", "session", "permissions", "register", "internal"),
                    "code", CODES)),
            Map.entry("cotal.auth.callout.latency", Map.of("outcome", Set.of("admitted", "refused", "dropped"))),
            Map.entry("cotal.auth.callout.answering", Map.of()),
            Map.entry("cotal.auth.policy.grants", Map.of("action", Set.of("granted", "regranted", "revoked"))),
            Map.entry("cotal.auth.http.requests", Map.of("face", FACES, "route", Set.of("health", "jwks", "exchange",
                    "join-bundle", "service-endpoint-host", "service-endpoint-authority", "manager-service-authority",
                    "verify-enrollment", "run-admission", "run-attempt", "run-operator-attempt", "retire-interactive",
                    "retire-managed", "actor-grant", "actor-revoke", "actor-list", "other"),
                    "status", Set.of("200", "400", "401", "403", "404", "405", "409", "413", "415", "429", "500", "503",
                            "other"))),
            Map.entry("cotal.auth.exchange.latency", Map.of("face", FACES, "outcome", Set.of("issued", "refused", "failed"))),
            Map.entry("cotal.auth.http.in.flight", Map.of("face", FACES)),
            Map.entry("cotal.auth.http.connections", Map.of("face", FACES)),
            Map.entry("cotal.auth.http.connections.cut", Map.of("face", FACES, "cause", Set.of("peer-cap", "read-deadline"))),
            Map.entry("cotal.auth.http.throttled", Map.of("face", FACES, "window", Set.of("refusals", "capability"))),
            Map.entry("cotal.auth.budget.refusals", Map.of("kind", Set.of("mint", "issuance", "endpoint"), "limit",
                    Set.of("principal", "space", "store-pressure"))),
            Map.entry("cotal.auth.endpoint.invocations", Map.of("operation", Set.of("register", "decide", "revoke",
                    "name-bind", "caller-grant", "caller-revoke", "caller-read", "caller-list", "instance-read",
                    "instance-list", "proposal-read", "operation-read", "name-read"), "status",
                    union(HOST_STATUSES, CODES))),
            Map.entry("cotal.auth.plane.state", Map.of("state", Set.of("open", "fenced", "closing"))),
            Map.entry("cotal.auth.plane.connections", Map.of("status", Set.of("connected", "reconnecting", "disconnected",
                    "closed"))),
            Map.entry("cotal.auth.plane.turnovers", Map.of("role", Set.of("auth-mint", "auth-reader", "auth-barrier",
                    "auth-issuer", "ep-discovery", "auth-admin"))),
            Map.entry("cotal.auth.store.used", Map.of("store", STORES)),
            Map.entry("cotal.auth.store.limit", Map.of("store", STORES)),
            Map.entry("cotal.auth.store.fill", Map.of("store", STORES)));

    private static Set<String> union(Set<String> a, Set<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableSet());
    }

    @Test
    void everyTagValueIsAClosedWordAndTheSpaceOnlyOnOptIn(NatsBrokers brokers) throws Exception {
        NatsBroker nats = f.broker(brokers);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (AuthService service = f.start(nats, stateDir, registry, true)) {
            f.drive(nats, service, stateDir);
            assertFalse(registry.getMeters().isEmpty());
            for (Meter meter : registry.getMeters()) {
                String name = meter.getId().getName();
                // a timer's percentiles and histogram buckets are gauges of their own, tagged phi and le
                boolean percentile = name.endsWith(".percentile");
                boolean histogram = name.endsWith(".histogram");
                Map<String, Set<String>> allowed = CATALOGUE.get(name.replaceFirst("\\.(percentile|histogram)$", ""));
                assertTrue(allowed != null, "a meter of the catalogue: " + id(meter));
                for (io.micrometer.core.instrument.Tag tag : meter.getId().getTags()) {
                    if (tag.getKey().equals("space")) {
                        assertEquals("alpha", tag.getValue(), "the opted-in space tag: " + id(meter));
                        continue;
                    }
                    if (percentile && tag.getKey().equals("phi")) {
                        assertTrue(Set.of("0.5", "0.95", "0.99").contains(tag.getValue()), id(meter));
                        continue;
                    }
                    if (histogram && tag.getKey().equals("le")) {
                        assertTrue(tag.getValue().matches("[0-9.]+|\\+Inf"), "a bucket bound: " + id(meter));
                        continue;
                    }
                    Set<String> values = allowed.get(tag.getKey());
                    assertTrue(values != null && values.contains(tag.getValue()), "a closed tag value: " + id(meter));
                    for (String secret : f.handled) {
                        assertFalse(tag.getValue().contains(secret), "no id, token, nonce or path in " + id(meter));
                    }
                    assertFalse(tag.getValue().contains("/") || tag.getValue().contains("\\"), "no path: " + id(meter));
                }
                assertEquals("alpha", meter.getId().getTag("space"), "every meter carries the opted-in space: " + id(meter));
            }
            assertTrue(f.handled.size() >= 10, "the traffic handled ids, secrets, nonces and a path: " + f.handled.size());
        }
    }
}
