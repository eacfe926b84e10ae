package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.Grant;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Granter;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** A broker, a plane with service endpoints on, two owners with interactive rows, an operator, and inspection. */
final class EndpointFixture implements AutoCloseable {
    static final String OWNER = "u_" + "a".repeat(26);
    static final String OTHER = "u_" + "b".repeat(26);
    static final String CONTRACT = "sha256:" + "c".repeat(64);
    private static final SecureRandom RANDOM = new SecureRandom();

    final PlaneFixture f = new PlaneFixture();
    final NatsBroker nats;
    final AuthAuthorityPlane plane;
    final ServiceEndpointEngine engine;
    final Connection admin;
    final Granter.Owner owner = new Granter.Owner(OWNER, "laptop");
    final Granter.Owner other = new Granter.Owner(OTHER, "laptop");
    final Granter.Operator operator = new Granter.Operator("ops@example.test");
    final String bucket = StoreNames.bucket("auth", "alpha");

    EndpointFixture(NatsBrokers brokers, Path stateDir) {
        this(brokers, stateDir, b -> b);
    }

    /** With {@code options} applied to the plane's options (e.g. its write budgets, SPEC §13.20). */
    EndpointFixture(NatsBrokers brokers, Path stateDir,
            java.util.function.UnaryOperator<ai.cotal.auth.AuthPlaneOptions.Builder> options) {
        nats = brokers.start(f::config);
        plane = AuthAuthorityPlane.open(options.apply(f.options(nats, stateDir).serviceEndpoints(true)).build());
        for (String o : List.of(OWNER, OTHER)) {
            plane.ledger().grantActor(Principal.of(o, "laptop"), Grant.of(List.of(), List.of(), List.of()));
        }
        engine = ((AuthorityPlaneImpl) plane).serviceEndpointEngine();
        admin = f.admin(nats);
    }

    /** The in-process host; register goes through the service authority entry, as the routes do. */
    HostResult call(Granter granter, HostRequest request) {
        ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
        return request instanceof HostRequest.Register r ? host.admit(granter, r) : host.serve(granter, request);
    }

    static String rid() {
        return "req-" + random("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 24);
    }

    static String iid() {
        return random("abcdefghijklmnopqrstuvwxyz0123456789", 26);
    }

    private static String random(String alphabet, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** Hooks that make every write of {@code at} fail {@code unavailable} while {@code failing} holds. */
    static Hooks failAt(Plan.Tag at, java.util.concurrent.atomic.AtomicBoolean failing, String why) {
        return new Hooks() {
            @Override
            public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                if (tag == at && failing.get()) {
                    throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE, "injected: " + why);
                }
            }
        };
    }

    HostRequest.Register register(String endpoint, String instanceId) {
        return new HostRequest.Register(rid(), endpoint, instanceId, CONTRACT, List.of("ask", "stream"));
    }

    HostRequest.Decide approve(String endpoint, String instanceId) {
        return new HostRequest.Decide(rid(), endpoint, instanceId, HostRequest.Decision.APPROVE);
    }

    /** Registers and approves an instance of {@code granter}; returns the register operation id. */
    String approved(Granter.Owner granter, String endpoint, String instanceId) {
        HostResult registered = call(granter, register(endpoint, instanceId));
        assertEquals(HostResult.Status.PENDING, registered.status(), "register: " + registered.reason());
        HostResult decided = call(granter, approve(endpoint, instanceId));
        assertEquals(HostResult.Status.COMPLETED, decided.status(), "approve: " + decided.reason());
        return registered.operationId();
    }

    /** The auth stream's last sequence: unchanged means nothing was written. */
    long lastSequence() {
        try {
            return admin.jetStreamManagement().getStreamInfo("KV_" + bucket).getStreamState().getLastSequence();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code json} at {@code key} behind the engine's back (the unrestricted test admin). */
    long put(String key, String json) {
        try {
            return admin.jetStream().publish("$KV." + bucket + "." + key, json.getBytes(StandardCharsets.UTF_8)).getSeqno();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A KV delete marker at {@code key}, as {@code kv.delete} writes it. */
    void delete(String key) {
        try {
            Headers headers = new Headers().put("KV-Operation", "DEL");
            admin.jetStream().publish(NatsMessage.builder().subject("$KV." + bucket + "." + key).headers(headers)
                    .data(new byte[0]).build());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The last value at {@code key} as text (null when absent). */
    String get(String key) {
        Discovery.Seen seen = engine.discovery().read(key);
        return seen.present() ? new String(seen.data(), StandardCharsets.UTF_8) : null;
    }

    /** Kicks a client connection through the system account (the broker closes it). */
    void kick(long cid) {
        try (Connection system = f.system(nats, f.evictor)) {
            system.request("$SYS.REQ.SERVER." + nats.serverId() + ".KICK",
                    ("{\"cid\":" + cid + "}").getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    Instant soon() {
        return Instant.now().plusSeconds(10);
    }

    @Override
    public void close() throws Exception {
        try {
            plane.close();
        } finally {
            admin.close();
        }
    }
}
