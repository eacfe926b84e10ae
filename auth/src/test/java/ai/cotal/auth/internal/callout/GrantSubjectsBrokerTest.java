package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantSubjects;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link Grant#subjects} says a grant opens is what the broker enforces (SPEC §13.14,
 * §13.16): a granted actor's client, admitted through the auth callout, publishes on each listed
 * publish subject and receives on each listed subscribe subject, and the broker refuses a
 * neighbouring subject of each with a permissions violation.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class GrantSubjectsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String CHAT = "cotal.alpha.chat.";
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    @Test
    void theBrokerAllowsEveryListedSubjectAndRefusesItsNeighbours(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Principal laptop = Principal.of(CalloutFixture.OWNER, "laptop");
        Grant grant = Grant.of(List.of("chat"), List.of("general", "team.news"), List.of("general", "team.ops"));
        String nonce = InboxNonce.forPrincipal(laptop);
        GrantSubjects subjects = grant.subjects(new SpaceName("alpha"), laptop, nonce);
        String own = CHAT + CalloutFixture.OWNER + ".laptop.";
        assertEquals(List.of(own + "general", own + "team.ops"), subjects.publish());
        assertEquals(List.of("_INBOX_" + nonce + ".>", CHAT + "*.*.general", CHAT + "*.*.team.news"), subjects.subscribe());

        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection observer = f.plane.admin(nats)) {
            String bearer = f.bearer(plane, "laptop", grant, Duration.ofMinutes(5));
            BlockingQueue<String> violations = new LinkedBlockingQueue<>();
            try (Connection client = Nats.connect(f.clientOptions(nats, bearer, nonce).errorListener(new ErrorListener() {
                @Override
                public void errorOccurred(Connection conn, String error) {
                    violations.add(error);
                }
            }).build())) {
                for (String subject : subjects.publish()) {
                    Subscription seen = observer.subscribe(subject);
                    observer.flush(WAIT);
                    client.publish(subject, subject.getBytes(StandardCharsets.UTF_8));
                    assertDelivered(seen, subject, "the broker let the client publish " + subject);
                }
                for (String pattern : subjects.subscribe()) {
                    Subscription mine = client.subscribe(pattern);
                    client.flush(WAIT);
                    String subject = pattern.replace("*", "probe").replace(">", "probe");
                    observer.publish(subject, subject.getBytes(StandardCharsets.UTF_8));
                    assertDelivered(mine, subject, "the broker let the client subscribe " + pattern);
                }

                Set<String> refused = new HashSet<>();
                for (String neighbour : List.of(own + "secret", // a channel the grant does not name
                        own + "team", // a prefix of a granted item
                        CHAT + CalloutFixture.OWNER + ".phone.general")) { // another actor's sender tokens
                    client.publish(neighbour, "no".getBytes(StandardCharsets.UTF_8));
                    refused.add(awaitViolation(violations, "Publish", neighbour));
                }
                for (String neighbour : List.of(CHAT + "*.*.secret", CHAT + "*.*.team.>", CHAT + ">",
                        "_INBOX_" + InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "phone")) + ".>")) {
                    client.subscribe(neighbour);
                    refused.add(awaitViolation(violations, "Subscription", neighbour));
                }
                client.flush(WAIT);
                assertEquals(7, refused.size(), "one refusal per neighbour: " + refused);
                assertEquals(List.of(), List.copyOf(violations), "no listed subject was refused");
            }
        }
    }

    private static void assertDelivered(Subscription subscription, String subject, String what) throws InterruptedException {
        Message message = subscription.nextMessage(WAIT);
        assertNotNull(message, what + ": nothing arrived");
        assertEquals(subject, message.getSubject(), what);
    }

    /** Waits for the broker's permissions violation of {@code kind} on {@code subject}; any other error fails. */
    private static String awaitViolation(BlockingQueue<String> violations, String kind, String subject)
            throws InterruptedException {
        String error = violations.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(error, "the broker did not refuse " + kind + " to " + subject);
        assertTrue(error.contains("Permissions Violation for " + kind) && error.contains("\"" + subject + "\""), error);
        return error;
    }
}
