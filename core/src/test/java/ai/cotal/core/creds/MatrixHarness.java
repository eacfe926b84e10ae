package ai.cotal.core.creds;

import static ai.cotal.core.BrokerClients.config;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One broker with the whole space {@code alpha} set up (SPEC §6.1), an unrestricted observer
 * connection, and the two proofs of the permission matrix: a profile's allowed action succeeds
 * on the broker, and every listed forbidden publish or subscription is refused by the broker
 * ("Permissions Violation"). Expectations are written out by each test, not derived from grants.
 */
final class MatrixHarness implements AutoCloseable {
    static final String SENTINEL = "cotal.permission-matrix.never-granted";
    final BrokerAuth broker = BrokerAuth.create("matrix", Clock.systemUTC());
    final SpaceAccountAuth account = SpaceAccountAuth.create(broker, "alpha", Clock.systemUTC());
    final SpaceAuth auth = new SpaceAuth(broker, account);
    final NatsBroker nats;
    final Connection admin;
    private final Map<String, String> failures = new LinkedHashMap<>();

    /** What a profile's credential does on the broker; throws when the broker refuses it. */
    @FunctionalInterface
    interface Positive {
        void run(Connection c, MatrixHarness h) throws Exception;
    }

    /** The forbidden subjects every profile tries, by a short name (publish unless noted). */
    static Map<String, String> commonPublish() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("stream-list", "$JS.API.STREAM.LIST");
        s.put("delete-chat", "$JS.API.STREAM.DELETE.CHAT_alpha");
        s.put("purge-chat", "$JS.API.STREAM.PURGE.CHAT_alpha");
        s.put("create-chat", "$JS.API.STREAM.CREATE.CHAT_alpha");
        s.put("update-auth", "$JS.API.STREAM.UPDATE.KV_cotal_auth_alpha");
        s.put("snapshot-auth", "$JS.API.STREAM.SNAPSHOT.KV_cotal_auth_alpha");
        s.put("restore-auth", "$JS.API.STREAM.RESTORE.KV_cotal_auth_alpha");
        s.put("auth-row", "$KV.cotal_auth_alpha.plane");
        s.put("issued-row", "$KV.cotal_issued_alpha.x");
        s.put("acl-row", "$KV.cotal_acl_alpha.x.y.z");
        s.put("manager-lease", "$KV.cotal_manager_alpha.lease.someone");
        s.put("admission-run", "$KV.cotal_admission_alpha.run.another");
        s.put("artifact-write", "$O.cotal_artifacts_alpha.M.x");
        s.put("chat-other", "cotal.alpha.chat.other.user.general");
        s.put("ctl-admin-other", "cotal.alpha.ctl.delivery-admin.x.y");
        s.put("svc-manager", "cotal.alpha.svc.manager.x.y");
        s.put("dm-create-bare", "$JS.API.CONSUMER.CREATE.DM_alpha");
        s.put("dm-durable-create", "$JS.API.CONSUMER.DURABLE.CREATE.DM_alpha.x");
        s.put("system-ping", "$SYS.REQ.SERVER.PING");
        return s;
    }

    /** The forbidden subscriptions every profile tries. */
    static Map<String, String> commonSubscribe() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("sub-chat-all", "cotal.alpha.chat.>");
        s.put("sub-other-inbox", "_INBOX_someoneelse.>");
        s.put("sub-ctl-delivery", "cotal.alpha.ctl.delivery.*.*");
        s.put("sub-svc", "cotal.alpha.svc.>");
        s.put("sub-everything", ">");
        return s;
    }

    MatrixHarness(NatsBrokers brokers) throws Exception {
        nats = brokers.start(b -> config(b, broker, List.of(account), List.of()));
        admin = connect(BrokerClients.unrestricted(account), new LinkedBlockingQueue<>());
        try (Connection provisioner = connect(mint(CredentialProfile.PROVISIONER, MintOptions.defaults()),
                new LinkedBlockingQueue<>())) {
            SpaceStores.setup(provisioner, "alpha");
        }
    }

    Creds mint(CredentialProfile profile, MintOptions options) {
        return Creds.mint(auth, Identity.create(), profile, options);
    }

    Connection connect(Creds creds, BlockingQueue<String> errors) {
        return NatsConnector.builder().server(nats.url()).creds(creds).label("matrix").errorListener(new ErrorListener() {
            @Override
            public void errorOccurred(Connection conn, String error) {
                errors.add(error);
            }
        }).build().connect();
    }

    /**
     * Runs {@code positive} on a connection of {@code creds} (no violation may occur), then tries
     * the common forbidden subjects except {@code allowed} plus {@code extraPub}/{@code extraSub},
     * and records any the broker did not refuse.
     */
    void check(String name, Creds creds, Positive positive, Set<String> allowed, Map<String, String> extraPub,
            Map<String, String> extraSub) {
        Map<String, String> pub = new LinkedHashMap<>(commonPublish());
        Map<String, String> sub = new LinkedHashMap<>(commonSubscribe());
        pub.keySet().removeAll(allowed);
        sub.keySet().removeAll(allowed);
        pub.putAll(extraPub);
        sub.putAll(extraSub);
        BlockingQueue<String> errors = new LinkedBlockingQueue<>();
        try (Connection c = connect(creds, errors)) {
            positive.run(c, this);
            c.flush(Duration.ofSeconds(5));
            List<String> early = new ArrayList<>(errors);
            if (!early.isEmpty()) {
                failures.put(name + " (allowed action)", "the broker refused: " + early);
            }
            errors.clear();
            sub.values().forEach(c::subscribe);
            pub.values().forEach(subject -> c.publish(subject, "{}".getBytes(StandardCharsets.UTF_8)));
            c.publish(SENTINEL, new byte[0]); // the broker answers in order: the sentinel's refusal comes last
            c.flush(Duration.ofSeconds(5));
            Set<String> refused = new TreeSet<>();
            while (true) {
                String error = errors.poll(10, TimeUnit.SECONDS);
                if (error == null) {
                    throw new AssertionError(name + ": no refusal of the sentinel arrived; saw " + refused);
                }
                if (error.contains(SENTINEL)) {
                    break;
                }
                if (error.contains("Permissions Violation")) {
                    pub.forEach((n, s) -> {
                        if (error.contains("Publish to \"" + s + "\"")) {
                            refused.add(n);
                        }
                    });
                    sub.forEach((n, s) -> {
                        if (error.contains("Subscription to \"" + s + "\"")) {
                            refused.add(n);
                        }
                    });
                }
            }
            Set<String> missing = new TreeSet<>(pub.keySet());
            missing.addAll(sub.keySet());
            missing.removeAll(refused);
            if (!missing.isEmpty()) {
                failures.put(name + " (forbidden)", "not refused: " + missing);
            }
        } catch (Exception | AssertionError e) {
            failures.put(name, e.toString());
        }
    }

    /** An unrestricted subscription on {@code subject}, flushed, for a credential's publish to reach. */
    Subscription watch(String subject) throws Exception {
        Subscription s = admin.subscribe(subject);
        admin.flush(Duration.ofSeconds(5));
        return s;
    }

    static void received(Subscription s, String subject) throws InterruptedException {
        Message m = s.nextMessage(Duration.ofSeconds(5));
        if (m == null || !m.getSubject().equals(subject)) {
            throw new AssertionError("did not receive " + subject);
        }
        s.unsubscribe();
    }

    /** Every recorded failure; empty when the whole family held. */
    Map<String, String> failures() {
        return failures;
    }

    @Override
    public void close() throws InterruptedException {
        admin.close();
    }
}
