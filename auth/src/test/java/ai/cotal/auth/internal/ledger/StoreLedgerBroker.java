package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A space's auth store on a real broker for the store ledger's tests: set up as the plane's open
 * does, the plane's real reader connection, and an unrestricted data-account connection standing
 * for the writer (the writer's grant on {@code ledger.>} comes with the plane's wiring) and
 * planting raw rows.
 */
final class StoreLedgerBroker implements AutoCloseable {
    static final String BUCKET = "cotal_auth_alpha";
    static final String STREAM = "KV_" + BUCKET;

    final PlaneFixture f = new PlaneFixture();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final NatsBroker nats;
    final Connection admin;
    final AuthorityConnection reader;
    final KeyValue kv;

    StoreLedgerBroker(ai.cotal.testbroker.NatsBrokers brokers) throws IOException {
        nats = brokers.start(f::config);
        admin = f.admin(nats);
        SpaceStores.setupAuthority(admin, "alpha");
        reader = AuthorityConnection.open(List.of(nats.url()), new ai.cotal.core.trust.SpaceAuth(f.broker, f.space).strip(),
                AuthorityRole.READER, Duration.ofHours(1), Clock.systemUTC(), scheduler, null, why -> { });
        kv = admin.keyValue(BUCKET);
    }

    /** The ledger the plane would hold: writes on the writer (here the admin), reads on the reader. */
    StoreActorLedger ledger() {
        return new StoreActorLedger(admin, reader.connection(), BUCKET, Clock.systemUTC());
    }

    /** The auth stream's last sequence: unchanged when nothing was written. */
    long lastSequence() throws Exception {
        return admin.jetStreamManagement().getStreamInfo(STREAM).getStreamState().getLastSequence();
    }

    /** The KV operation header of a key's last message ({@code null} for a put). */
    String operation(String key) throws Exception {
        var headers = admin.jetStreamManagement().getLastMessage(STREAM, "$KV." + BUCKET + "." + key).getHeaders();
        return headers == null ? null : headers.getFirst("KV-Operation");
    }

    @Override
    public void close() throws Exception {
        reader.close();
        admin.close();
        scheduler.shutdownNow();
    }
}
