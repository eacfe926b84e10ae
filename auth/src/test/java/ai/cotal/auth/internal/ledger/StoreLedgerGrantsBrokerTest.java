package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may write the store ledger (SPEC §13.23 "Who writes"): the broker refuses a publish on
 * {@code $KV.cotal_auth_<t>.ledger.x} from every authority role but the writer, and takes the
 * writer's into the auth stream.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreLedgerGrantsBrokerTest {
    private static final String LEDGER_SUBJECT = "$KV." + StoreLedgerBroker.BUCKET + ".ledger.x";
    private static final String SENTINEL = "cotal.ledger-grants.never-granted";

    private static Creds role(StoreLedgerBroker store, AuthorityRole role) {
        NKeyPair user = NKeyPair.create(KeyType.USER);
        String jwt = NatsJwt.encode(ClaimSet.of(user.publicKey(), role.connectionName("alpha"), UserClaim.of(
                role.publish("alpha"), role.subscribe("alpha", user.publicKey()),
                store.f.space.accountPublicKey(), null), Instant.now()), store.f.space.signing());
        return new Creds(jwt, Identity.fromSeed(user.seed()));
    }

    /** Publishes on the ledger subject over {@code c}, then a sentinel; true iff the broker refused the first. */
    private static boolean refused(Connection c, BlockingQueue<String> errors) throws Exception {
        c.publish(LEDGER_SUBJECT, "{}".getBytes(StandardCharsets.UTF_8));
        c.publish(SENTINEL, new byte[0]); // the broker answers in order: the sentinel's refusal comes last
        c.flush(Duration.ofSeconds(5));
        boolean refused = false;
        while (true) {
            String error = errors.poll(10, TimeUnit.SECONDS);
            if (error == null) {
                throw new AssertionError("no refusal of the sentinel subject arrived");
            }
            if (error.contains(SENTINEL)) {
                return refused;
            }
            refused |= error.contains("Permissions Violation") && error.contains("\"" + LEDGER_SUBJECT + "\"");
        }
    }

    private static Connection connect(StoreLedgerBroker store, Creds creds, BlockingQueue<String> errors) throws Exception {
        return NatsConnector.builder().server(store.nats.url()).creds(creds).label("ledger-grants")
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        errors.add(error);
                    }
                }).build().connect();
    }

    @Test
    void theBrokerRefusesEveryRoleButTheWriterOnTheLedgerAndTakesTheWriters(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            List<String> notRefused = new ArrayList<>();
            for (AuthorityRole role : AuthorityRole.values()) {
                if (role == AuthorityRole.WRITER) {
                    continue;
                }
                BlockingQueue<String> errors = new LinkedBlockingQueue<>();
                try (Connection c = connect(store, role(store, role), errors)) {
                    if (!refused(c, errors)) {
                        notRefused.add(role.name());
                    }
                }
            }
            // a callout replica's reader is minted with READER's grant (CalloutReplica opens AuthorityRole.READER)
            assertEquals(List.of(), notRefused, "every role but the writer is refused on ledger.>");
            assertEquals(0, store.kv.keys().stream().filter(k -> k.startsWith("ledger.")).count(),
                    "nothing landed under ledger. from the refused roles");

            BlockingQueue<String> errors = new LinkedBlockingQueue<>();
            try (Connection writer = connect(store, role(store, AuthorityRole.WRITER), errors)) {
                Message ack = writer.request(LEDGER_SUBJECT, "{\"w\":1}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
                assertTrue(new String(ack.getData(), StandardCharsets.UTF_8).contains("\"seq\""), "a publish ack");
                assertTrue(!refused(writer, errors), "the writer's publish is not refused");
            }
            var landed = store.kv.get("ledger.x");
            assertEquals("{}", new String(landed.getValue(), StandardCharsets.UTF_8), "the writer's last publish stands");
        }
    }
}
