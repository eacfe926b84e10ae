package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import java.io.IOException;
import java.util.Objects;

/** A source is live while its KV row exists and its last operation is a put. Thread-safe. */
public final class KvSourceLiveness implements SourceLiveness {
    private final Connection connection;

    public KvSourceLiveness(Connection connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    @Override
    public boolean isLive(Source source) {
        try {
            KeyValueEntry entry = connection.keyValue(source.bucket()).get(source.key());
            return entry != null && entry.getOperation() == KeyValueOperation.PUT;
        } catch (JetStreamApiException | IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read source " + source.bucket() + "/" + source.key(), e);
        }
    }
}
