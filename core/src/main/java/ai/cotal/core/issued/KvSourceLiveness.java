package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.connect.ConnectedWait;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import java.io.IOException;
import java.util.Objects;

/**
 * Core's source check (SPEC §13.15): a source is live while its KV row exists and its last
 * operation is a put. It refuses an actor-ledger source (bucket {@code cotal_actors_<token>}):
 * the actor ledger is files, not a KV bucket, and only the authority plane that owns it answers
 * for it. A read that meets the connection reconnecting waits for it, as every row read does.
 * Thread-safe.
 */
public final class KvSourceLiveness implements SourceLiveness {
    /** The bucket prefix of actor-ledger sources, which no KV bucket carries. */
    public static final String ACTOR_LEDGER_BUCKET_PREFIX = "cotal_actors_";

    private final Connection connection;

    /** Reads sources over {@code connection}, which must be allowed to read their buckets. */
    public KvSourceLiveness(Connection connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    @Override
    public boolean isLive(Source source) {
        if (source.bucket().startsWith(ACTOR_LEDGER_BUCKET_PREFIX)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "source " + source.bucket() + "/" + source.key()
                    + " is an actor-ledger row: only the authority plane that owns the ledger answers for it");
        }
        try {
            return ConnectedWait.on(connection).run(() -> {
                KeyValueEntry entry = connection.keyValue(source.bucket()).get(source.key());
                return entry != null && entry.getOperation() == KeyValueOperation.PUT;
            });
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read source " + source.bucket() + "/" + source.key(), e);
        }
    }
}
