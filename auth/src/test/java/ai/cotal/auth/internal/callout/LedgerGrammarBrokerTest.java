package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's grammar on a real broker (SPEC §13.14): an owner has the one shape a bearer can
 * present, and a grant item is literal tokens (no wildcard, no empty token). A bad grant is refused
 * naming the field before anything is written; a row that breaks the grammar on disk is refused at
 * connect, so the broker never receives a subject it widens.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class LedgerGrammarBrokerTest {
    private static final String CALLOUT_ERROR = "Auth callout service returned an error";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";

    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private static void assertBadRequest(String field, Runnable call) {
        CotalException e = assertThrows(CotalException.class, call::run, field);
        assertEquals(ErrorCode.BAD_REQUEST, e.code(), e.getMessage());
        assertTrue(e.getMessage().startsWith(field + ":"), "names " + field + ": " + e.getMessage());
    }

    @Test
    void aWildcardOrEmptyTokenInAnyGrantItemIsRefusedNamingTheFieldBeforeAnythingIsWritten(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir)) {
            ActorLedger ledger = plane.ledger();
            List<Function<List<String>, Grant>> lists = List.of(
                    items -> Grant.of(items, List.of(), List.of()),
                    items -> Grant.of(List.of(), items, List.of()),
                    items -> new Grant(List.of(), List.of(), items, Optional.empty(), Optional.empty(), Optional.empty()));
            List<String> fields = List.of("scope", "allowSubscribe", "allowPublish");
            for (String bad : List.of(">", "*", "general.>", "general.*", "a..b", ".general", "general.", "")) {
                for (int i = 0; i < lists.size(); i++) {
                    Function<List<String>, Grant> list = lists.get(i);
                    // the grant itself refuses, so neither kind of row can be asked for with it
                    assertBadRequest(fields.get(i) + "[1]", () -> ledger.grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                            list.apply(List.of("general", bad))));
                    assertBadRequest(fields.get(i) + "[1]", () -> ledger.grantManagedActor(Principal.of(CalloutFixture.OWNER,
                            "agent"), list.apply(List.of("general", bad)), "0".repeat(64), new LifecycleUid(UID)));
                }
            }
            assertFalse(Files.exists(stateDir.resolve("actors")) || Files.exists(stateDir.resolve("managed-actors")),
                    "no row (no ledger directory) was written");
            ledger.grantActor(Principal.of(CalloutFixture.OWNER, "laptop"), Grant.of(List.of("chat"),
                    List.of("general", "team.ops", "run-start", "a:b"), List.of()));
        }
    }

    @Test
    void aRowWithAWildcardItemOnDiskIsRefusedAtConnect(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            String bearer = f.bearer(plane, "laptop", List.of(), List.of("general"), Duration.ofMinutes(5));
            String nonce = InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop"));
            try (CalloutFixture.Client client = f.connect(nats, bearer, nonce)) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), "the literal grant connects");
            }
            // a row written behind the ledger's back (or by a version that took wildcards)
            Path row = stateDir.resolve("actors/" + CalloutFixture.OWNER + ".laptop.json");
            Files.writeString(row, Files.readString(row).replace("\"allowSubscribe\":[\"general\"]",
                    "\"allowSubscribe\":[\">\"]"), StandardCharsets.UTF_8);
            assertTrue(Files.readString(row).contains("[\">\"]"), "the row now asks for every channel");
            long mark = nats.log().mark();
            Exception refused = f.refused(nats, bearer, nonce);
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
            String line = nats.log().await(mark, l -> l.contains(CALLOUT_ERROR), Duration.ofSeconds(5))
                    .orElseThrow(() -> new AssertionError("no callout refusal in the broker's log:\n" + nats.logTail(40)));
            assertTrue(line.contains("is corrupt") && line.contains("allowSubscribe[0]"), line);
        }
    }

    /**
     * One owner rule (SPEC §1.1): a principal the ledger accepts is issued a credential and a
     * bearer, presented by a jnats client through the auth callout and admitted; an owner outside
     * the rule is refused {@code bad-request} naming {@code owner} at the ledger's door (the
     * {@link Principal} its every call takes), before anything is written.
     */
    @Test
    void aPrincipalTheLedgerAcceptsIsIssuedPresentedAndAdmittedAndAnOwnerOutsideTheRuleIsRefusedBeforeAnyWrite(
            NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            Grant grant = Grant.of(List.of("chat"), List.of("general"), List.of());
            for (String owner : List.of("alice", "u_owner", "U_ABCDEFGHIJKLMNOPQRSTUVWXYZ", "u_abcdefghijklmnopqrstuvwxy1",
                    "u_abcdefghijklmnopqrstuvwxyza", "u_abcdefghijklmnopqrstuvwxy.")) {
                assertFalse(Owner.matches(owner), owner);
                assertBadRequest("owner", () -> plane.ledger().grantActor(Principal.of(owner, "laptop"), grant));
                assertBadRequest("owner", () -> plane.ledger().grantManagedActor(new Principal(new Owner(owner),
                        new Actor("agent")), grant, "0".repeat(64), new LifecycleUid(UID)));
                assertBadRequest("parent", () -> plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "child"),
                        new Grant(List.of(), List.of(), List.of(), Optional.empty(),
                                Optional.of(Principal.parse(owner + ".laptop", "parent")), Optional.empty())));
            }
            assertFalse(Files.exists(stateDir.resolve("actors")) || Files.exists(stateDir.resolve("managed-actors")),
                    "no ledger row (no ledger directory) was written");
            assertEquals(List.of(), plane.credentials().list(), "no credential row was written");

            Principal laptop = Principal.of(plane.deriveOwner("https://idp.example", "alice").value(), "laptop");
            ActorRow row = plane.ledger().grantActor(laptop, grant);
            assertEquals(laptop, row.principal());
            assertEquals(Optional.of(row), plane.ledger().find(laptop));
            CredentialId credential = plane.credentials().mint(laptop, row.lifecycleUid()).id();
            assertEquals(List.of(credential), plane.credentials().list());
            assertEquals(row.lifecycleUid(), plane.lifecycles().head(laptop).orElseThrow().lifecycleUid(),
                    "the mint made the grant's lifecycle the alias's head");
            String bearer = plane.bearers().issue(BearerRequest.member(laptop, List.of("chat"), row.lifecycleUid(),
                    credential, Duration.ofMinutes(5)));
            BearerClaims claims = plane.bearers().verify(bearer);
            assertEquals(laptop, claims.principal());
            assertEquals(row.lifecycleUid(), claims.lifecycleUid());
            assertEquals(credential, claims.credentialId());
            try (CalloutFixture.Client client = f.connect(nats, bearer, InboxNonce.forPrincipal(laptop))) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), "the callout admitted it");
            }
        }
    }
}
