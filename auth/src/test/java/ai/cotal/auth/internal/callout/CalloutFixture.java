package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A space with its callout account on the broker, an open plane and a responder. */
public final class CalloutFixture {
    public final PlaneFixture plane = new PlaneFixture();
    public final CalloutAuth callout = plane.callout;
    public static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    /** {@code actor}'s inbox nonce (SPEC §13.16) with the given random part. */
    public static String nonce(String actor, String random) {
        return InboxNonce.of(Principal.of(OWNER, actor), random);
    }

    public String config(NatsBroker nats) {
        return ServerConfig.render(plane.broker, List.of(plane.space), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(nats.storeDir()).extraAccounts(List.of(callout.jwt())).build());
    }

    public AuthAuthorityPlane open(NatsBroker nats, Path stateDir) {
        return AuthAuthorityPlane.open(plane.options(nats, stateDir).build());
    }

    public AuthCallout responder(NatsBroker nats, AuthAuthorityPlane authority) {
        return AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                .plane(((AuthorityPlaneImpl) authority).calloutAuthority())
                .signer(new SpaceAuth(plane.broker, plane.space).strip()).build());
    }

    /** Grants {@code actor}, mints its credential row and a bearer of {@code ttl}. */
    public String bearer(AuthAuthorityPlane authority, String actor, List<String> publish, List<String> subscribe, Duration ttl) {
        return bearer(authority, actor, Grant.of(List.of("chat"), subscribe, publish), ttl);
    }

    /** Grants {@code actor} {@code grant} (its scope must hold {@code chat}), mints its credential row and a bearer of {@code ttl}. */
    public String bearer(AuthAuthorityPlane authority, String actor, Grant grant, Duration ttl) {
        ActorRow row = authority.ledger().grantActor(Principal.of(OWNER, actor), grant);
        CredentialId credential = authority.credentials().mint(Principal.of(OWNER, actor), row.lifecycleUid()).id();
        return authority.bearers().issue(BearerRequest.member(Principal.of(OWNER, actor), List.of("chat"), row.lifecycleUid(),
                credential, ttl));
    }

    /** A client that presents the sentinel credential and the bearer, named after its inbox nonce. */
    public record Client(Connection connection, CompletableFuture<String> violation) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            connection.close();
        }
    }

    public Options.Builder clientOptions(NatsBroker nats, String bearer, String nonce) {
        return new Options.Builder().server(nats.url()).authHandler(callout.sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).connectionTimeout(Duration.ofSeconds(5)).noReconnect();
    }

    public Client connect(NatsBroker nats, String bearer, String nonce) throws Exception {
        CompletableFuture<String> violation = new CompletableFuture<>();
        Connection connection = Nats.connect(clientOptions(nats, bearer, nonce).errorListener(new ErrorListener() {
            @Override
            public void errorOccurred(Connection conn, String error) {
                if (error.contains("Permissions Violation")) {
                    violation.complete(error);
                }
            }
        }).build());
        return new Client(connection, violation);
    }

    /** Connects where the broker must refuse; returns the refusal (short timeout: jnats waits after an -ERR). */
    public Exception refused(NatsBroker nats, String bearer, String nonce) {
        try {
            Nats.connect(clientOptions(nats, bearer, nonce).connectionTimeout(Duration.ofMillis(2500)).build()).close();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("the broker admitted the client");
    }
}
