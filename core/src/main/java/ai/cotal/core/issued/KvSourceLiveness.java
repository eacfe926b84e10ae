package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.connect.ConnectedWait;
import ai.cotal.core.internal.kv.LeaderGet;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Core's source check (SPEC §13.15): a source is live while its KV row exists and its last
 * operation is a put. It refuses an actor-ledger source (bucket {@code cotal_actors_<token>}):
 * the actor ledger is files, not a KV bucket, and only the authority plane that owns it answers
 * for it. The row is read from the stream's leader ({@code STREAM.MSG.GET}), never by a direct get:
 * a replica a write behind would still show a source just deleted as live (SPEC §6 Reads). A read
 * that meets the connection reconnecting waits for it, as every row read does. Thread-safe.
 */
public final class KvSourceLiveness implements SourceLiveness {
    /** The bucket prefix of actor-ledger sources, which no KV bucket carries. */
    public static final String ACTOR_LEDGER_BUCKET_PREFIX = "cotal_actors_";

    private final Connection connection;
    private final LeaderGet leader;

    /** Reads sources over {@code connection}, which must be allowed {@code STREAM.MSG.GET} of their buckets' streams. */
    public KvSourceLiveness(Connection connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.leader = new LeaderGet(connection);
    }

    @Override
    public boolean isLive(Source source) {
        if (source.bucket().startsWith(ACTOR_LEDGER_BUCKET_PREFIX)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "source " + source.bucket() + "/" + source.key()
                    + " is an actor-ledger row: only the authority plane that owns the ledger answers for it");
        }
        try {
            return ConnectedWait.on(connection).run(() -> {
                Optional<MessageInfo> last = leader.last("KV_" + source.bucket(), "$KV." + source.bucket() + "."
                        + source.key());
                Headers headers = last.map(MessageInfo::getHeaders).orElse(null);
                return last.isPresent() && (headers == null || (!headers.containsKey("KV-Operation")
                        && !headers.containsKey("Nats-Marker-Reason")));
            });
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read source " + source.bucket() + "/" + source.key(), e);
        }
    }
}
