package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.core.issued.Source;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plane's composed source check (SPEC §13.15, the seed's {@code composedSourceIsLive}):
 * actor-ledger sources from the plane's ledger, the space's other authority rows through core's
 * check on the issuer connection, anything else not live.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneSourceLivenessBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private final PlaneFixture f = new PlaneFixture();
    private final Ceiling ceiling = new Ceiling(Ceiling.Side.patterns(List.of("cotal.alpha.chat.>"), List.of()),
            Ceiling.Side.none());
    private final AtomicInteger connections = new AtomicInteger();

    @TempDir
    Path stateDir;

    /** Stages and releases an issuance resting on {@code source}; returns its accepted token. */
    private String issue(IssuedAuthority writer, Source source) {
        String token = IssuedAuthority.acceptedToken("source-conn-" + connections.incrementAndGet());
        IssuedRef ref = new IssuedRef("alpha", OWNER, "laptop", "abcdefghijklmnopqrstuvwxyz", IssuedAuthority.newGeneration());
        writer.release(writer.stage(ref, List.of(source), ceiling, Optional.empty()), token);
        return token;
    }

    private static CotalException refused(AuthAuthorityPlane plane, String token) {
        return assertThrows(CotalException.class, () -> plane.issuedCallers().resolve(token));
    }

    @Test
    void authorityRowsAreAnsweredByCoresCheckOnTheIssuerConnection(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats)) {
            IssuedAuthority writer = IssuedAuthority.bind(admin, "alpha", source -> true, f.clock);
            KeyValue records = admin.keyValue("cotal_records_alpha");
            records.put("svc.spec.test", "{}".getBytes(StandardCharsets.UTF_8));
            String onRecord = issue(writer, new Source("alpha", "cotal_records_alpha", "svc.spec.test"));
            assertEquals(OWNER, plane.issuedCallers().resolve(onRecord).ref().owner(), "a direct-get store's row is live");

            KeyValue auth = admin.keyValue("cotal_auth_alpha");
            auth.put("gate.source-test", "{}".getBytes(StandardCharsets.UTF_8));
            String onGate = issue(writer, new Source("alpha", "cotal_auth_alpha", "gate.source-test"));
            assertEquals(OWNER, plane.issuedCallers().resolve(onGate).ref().owner(), "a leader-read store's row is live");

            records.delete("svc.spec.test");
            CotalException gone = refused(plane, onRecord);
            assertEquals(ErrorCode.PERMISSION_DENIED, gone.code());
            assertTrue(gone.getMessage().contains("source cotal_records_alpha/svc.spec.test is gone"), gone.getMessage());
            assertEquals(OWNER, plane.issuedCallers().resolve(onGate).ref().owner());
        }
    }

    @Test
    void otherSpacesOtherBucketsAndMalformedLedgerSourcesAreNeverLive(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats)) {
            IssuedAuthority writer = IssuedAuthority.bind(admin, "alpha", source -> true, f.clock);
            ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"), List.of(),
                    List.of()));
            String onLedger = issue(writer, new Source("alpha", "cotal_actors_alpha", "actor." + OWNER + ".laptop."
                    + row.lifecycleUid()));
            assertEquals(OWNER, plane.issuedCallers().resolve(onLedger).ref().owner(), "the ledger row is live");

            admin.keyValue("cotal_records_alpha").put("svc.spec.live", "{}".getBytes(StandardCharsets.UTF_8));
            String foreignSpace = issue(writer, new Source("beta", "cotal_records_alpha", "svc.spec.live"));
            assertEquals(ErrorCode.PERMISSION_DENIED, refused(plane, foreignSpace).code(),
                    "a plane attests only its own space");
            String foreignLedger = issue(writer, new Source("beta", "cotal_actors_beta", "actor." + OWNER + ".laptop."
                    + row.lifecycleUid()));
            assertEquals(ErrorCode.PERMISSION_DENIED, refused(plane, foreignLedger).code());
            String notAuthority = issue(writer, new Source("alpha", "cotal_members_alpha", "svc.spec.live"));
            assertEquals(ErrorCode.PERMISSION_DENIED, refused(plane, notAuthority).code(),
                    "a bucket outside the authority stores is not live");

            String malformed = issue(writer, new Source("alpha", "cotal_actors_alpha", "actor." + OWNER + ".laptop"));
            CotalException shape = refused(plane, malformed);
            assertEquals(ErrorCode.FAILED_PRECONDITION, shape.code(), "core's check refuses the actor-ledger bucket");
            assertTrue(shape.getMessage().contains("is an actor-ledger row"), shape.getMessage());

            plane.ledger().revoke(Principal.of(OWNER, "laptop"));
            assertEquals(ErrorCode.PERMISSION_DENIED, refused(plane, onLedger).code(), "a revoked row is not live");
        }
    }
}
