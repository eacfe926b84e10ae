package ai.cotal.auth.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.endpoint.EffectConnection;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * For every credential profile and every authority role connection: the sensitive subjects it
 * must not publish are refused by the broker ("Permissions Violation"), and the ones its grant
 * names are not. The expectations are written out here, not derived from the grants.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PermissionMatrixBrokerTest {
    private static final String SENTINEL = "cotal.permission-matrix.never-granted";
    private static final String IID = "mgr0000000000000000000000001";
    private static final String OTHER_IID = "mgr0000000000000000000000002";

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path stateDir;
    private final PlaneFixture f = new PlaneFixture();
    private final SpaceAuth auth = new SpaceAuth(f.broker, f.space);

    /** The data-account subjects every credential tries, by a short name. */
    private Map<String, String> dataSubjects() {
        String auth = StoreNames.bucket("auth", "alpha");
        String issued = StoreNames.bucket("issued", "alpha");
        Map<String, String> s = new LinkedHashMap<>();
        s.put("plane", "$KV." + auth + ".plane");
        s.put("credential-row", "$KV." + auth + ".cred.x");
        s.put("ledger-row", "$KV." + auth + ".ledger.o.a"); // SPEC §13.23: the writer's only
        s.put("lifecycle-record", "$KV." + auth + ".lifecycle.head.o.a"); // SPEC §14.1: the barrier's only
        String records = StoreNames.bucket("records", "alpha");
        s.put("serving-gate", "$KV." + auth + ".gate.manager." + IID); // SPEC §14.2: the writer's only
        s.put("own-auth-spec", "$KV." + records + ".svc.auth." + IID + ".spec");
        s.put("manager-own-record", "$KV." + records + ".svc.manager." + IID + ".spec"); // the registrar's own
        s.put("manager-other-record", "$KV." + records + ".svc.manager." + OTHER_IID + ".spec");
        s.put("endpoint-key", "$KV." + auth + ".svc.name.other");
        s.put("endpoint-scoped-key", "$KV." + auth + ".svc.name.mine");
        s.put("issued-row", "$KV." + issued + ".x");
        s.put("admission-marker", "$KV." + StoreNames.bucket("admission", "alpha") + ".service-endpoints");
        s.put("run-admission-row", "$KV." + StoreNames.bucket("admission", "alpha") // SPEC §14.7: the writer's
                + ".run.manager.abcdefghijklmnopqrstuvwxyz.admission");
        s.put("served-run-request", "cotal.alpha.svc.manager.u_abcdefghijklmnopqrstuvwxyz.run.resume.abcdefghijklmnopqrstuvwxyz"
                + ".request0000000001"); // SPEC §14.8: the issuer observes it and may not publish it
        String admission = StoreNames.bucket("admission", "alpha");
        s.put("auth-fence", "$KV." + auth + ".plane.fence.0"); // SPEC §13.13: the barrier's only (acquisitions)
        s.put("auth-witness", "$KV." + auth + ".plane.witness.0"); // fenced writes of the barrier, writer, effect
        s.put("records-fence", "$KV." + records + ".plane.fence.0"); // the writer's restamp
        s.put("admission-fence", "$KV." + admission + ".plane.fence.0");
        s.put("delete-auth-stream", "$JS.API.STREAM.DELETE.KV_" + auth);
        s.put("purge-auth-stream", "$JS.API.STREAM.PURGE.KV_" + auth);
        s.put("delete-issued-stream", "$JS.API.STREAM.DELETE.KV_" + issued);
        s.put("create-auth-stream", "$JS.API.STREAM.CREATE.KV_" + auth);
        s.put("update-auth-stream", "$JS.API.STREAM.UPDATE.KV_" + auth); // bounds an unbounded store (SPEC §6)
        s.put("read-auth-stream", "$JS.API.STREAM.MSG.GET.KV_" + auth);
        s.put("system-ping", "$SYS.REQ.SERVER.PING");
        s.put("retire-rail", "cotal.alpha.auth.admin." + IID + ".retire-managed"); // SPEC §14.1: IID's standing credential's
        return s;
    }

    private Map<String, String> systemSubjects(NatsBroker nats) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("connz", "$SYS.REQ.ACCOUNT." + f.space.accountPublicKey() + ".CONNZ");
        s.put("kick", "$SYS.REQ.SERVER." + nats.serverId() + ".KICK");
        s.put("claims-update", "$SYS.REQ.ACCOUNT." + f.space.accountPublicKey() + ".CLAIMS.UPDATE");
        s.put("server-ping", "$SYS.REQ.SERVER.PING");
        s.put("jsz", "$SYS.REQ.SERVER." + nats.serverId() + ".JSZ");
        return s;
    }

    /** Publishes every subject, then a sentinel, and returns the names the broker refused. */
    private static Set<String> refused(NatsBroker nats, Creds creds, Map<String, String> subjects) throws Exception {
        BlockingQueue<String> errors = new LinkedBlockingQueue<>();
        try (Connection c = NatsConnector.builder().server(nats.url()).creds(creds).label("permission-matrix")
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        errors.add(error);
                    }
                }).build().connect()) {
            for (String subject : subjects.values()) {
                c.publish(subject, "{}".getBytes(StandardCharsets.UTF_8));
            }
            c.publish(SENTINEL, new byte[0]); // the broker answers in order: its refusal comes last
            c.flush(Duration.ofSeconds(5));
            Set<String> refused = new TreeSet<>();
            while (true) {
                String error = errors.poll(10, TimeUnit.SECONDS);
                if (error == null) {
                    throw new AssertionError("no refusal of the sentinel subject arrived; saw " + refused);
                }
                if (error.contains(SENTINEL)) {
                    return refused;
                }
                subjects.forEach((name, subject) -> {
                    if (error.contains("Permissions Violation") && error.contains("\"" + subject + "\"")) {
                        refused.add(name);
                    }
                });
            }
        }
    }

    private Creds role(AuthorityRole role) {
        NKeyPair user = NKeyPair.create(KeyType.USER);
        String jwt = NatsJwt.encode(ClaimSet.of(user.publicKey(), role.connectionName("alpha"), UserClaim.of(
                role.publish("alpha"), role.subscribe("alpha", user.publicKey()),
                f.space.accountPublicKey(), null), Instant.now()), f.space.signing());
        return new Creds(jwt, Identity.fromSeed(user.seed()));
    }

    private static Set<String> except(Map<String, String> subjects, String... allowed) {
        Set<String> refused = new TreeSet<>(subjects.keySet());
        refused.removeAll(List.of(allowed));
        return refused;
    }

    @Test
    void everyDataAccountCredentialReachesOnlyWhatItsGrantNames(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Map<String, String> s = dataSubjects();
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        Map<String, Creds> creds = new LinkedHashMap<>();
        MintOptions agent = MintOptions.builder().owner("u_abcdefghijklmnopqrstuvwxyz").actor("laptop")
                .lifecycleUid("abcdefghijklmnopqrstuvwxyz").allowPublish(List.of("general"))
                .allowSubscribe(List.of("general")).build();
        for (CredentialProfile profile : CredentialProfile.values()) {
            if (profile.systemAccount() || profile == CredentialProfile.ENDPOINT_SERVE) {
                continue; // endpoint-serve: only behind the plane's gate (core's ProfileMatrixPlaneBrokerTest)
            }
            creds.put("profile " + profile.label(), Creds.mint(auth, Identity.create(), profile, switch (profile.pin()) {
                case LIFECYCLE_UID -> agent;
                case NONE -> MintOptions.defaults();
                default -> MintOptions.builder().pin("pin1").build();
            }));
            expected.put("profile " + profile.label(), switch (profile) {
                case PROVISIONER -> except(s, "create-auth-stream", "update-auth-stream");
                case ISSUER -> except(s, "issued-row", "read-auth-stream");
                case ISSUED_STORE_RECREATE -> except(s, "delete-issued-stream");
                case TEARDOWN -> except(s, "delete-auth-stream", "delete-issued-stream");
                default -> except(s);
            });
        }
        for (AuthorityRole role : AuthorityRole.values()) {
            creds.put("role " + role.name(), role(role));
            expected.put("role " + role.name(), switch (role) {
                case WRITER -> except(s, "credential-row", "ledger-row", "serving-gate", "own-auth-spec", "admission-marker",
                        "run-admission-row", "create-auth-stream", "update-auth-stream", "read-auth-stream",
                        "auth-witness", "records-fence", "admission-fence");
                case BARRIER -> except(s, "plane", "lifecycle-record", "read-auth-stream", "auth-fence", "auth-witness");
                case READER, DISCOVERY -> except(s, "read-auth-stream");
                case ISSUER, ISSUER_WINDOW -> except(s, "issued-row", "read-auth-stream");
                case LEDGER_SCANNER -> except(s, "read-auth-stream"); // a sealed scan is closed by the leader (SPEC §6)
                case RECORDS_SCANNER -> except(s);
                case ADMIN -> except(s); // its replies only (SPEC §14.1)
            });
        }
        NKeyPair effectUser = NKeyPair.create(KeyType.USER);
        EffectConnection.Dial dial = new EffectConnection.Dial(List.of(nats.url()), auth.strip(), null,
                StoreNames.bucket("auth", "alpha"), effectUser);
        creds.put("effect connection", new Creds(EffectConnection.credential(dial, Set.of("svc.name.mine"), Instant.now(),
                Instant.now().plusSeconds(30)),
                Identity.fromSeed(effectUser.seed())));
        expected.put("effect connection", except(s, "endpoint-scoped-key", "auth-witness"));
        try (ai.cotal.auth.AuthAuthorityPlane plane = ai.cotal.auth.AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            plane.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "mgr"), ai.cotal.auth.Grant.of(
                    List.of("chat"), List.of(), List.of()));
            creds.put("manager registrar", plane.managers().registrarCredential(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "mgr"), new InstanceId(IID),
                    Duration.ofMinutes(5)));
        }
        expected.put("manager registrar", except(s, "manager-own-record")); // SPEC §14.4: no gate, no other instance

        Map<String, Set<String>> actual = new LinkedHashMap<>();
        for (Map.Entry<String, Creds> c : creds.entrySet()) {
            actual.put(c.getKey(), refused(nats, c.getValue(), s));
        }
        assertEquals(expected, actual, "the broker's refusals, per credential");
    }

    @Test
    void everySystemCredentialReachesOnlyItsOneRequest(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Map<String, String> s = systemSubjects(nats);
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        Map<String, Set<String>> actual = new LinkedHashMap<>();
        for (CredentialProfile profile : CredentialProfile.values()) {
            if (!profile.systemAccount()) {
                continue;
            }
            Creds creds = Creds.mintSystem(f.broker, Identity.create(), profile, f.space.accountPublicKey(),
                    MintOptions.defaults());
            expected.put(profile.label(), switch (profile) {
                case MEMBERSHIP_OBSERVER -> except(s, "connz");
                case CONNECTION_EVICTOR -> except(s, "kick");
                case ACCOUNT_CLAIMS -> except(s, "claims-update", "jsz");
                default -> except(s);
            });
            actual.put(profile.label(), refused(nats, creds, s));
        }
        assertEquals(expected, actual, "the broker's refusals, per system credential");
    }
}
