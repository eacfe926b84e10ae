package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import java.io.IOException;
import java.time.Instant;

/**
 * The space's service-endpoint admission marker (SPEC §13.19): key {@code service-endpoints} in
 * {@code cotal_admission_<token>}, created (create-only) by the first plane open with service
 * endpoints. The admission bucket denies delete and purge: nothing closes it. Callout replicas
 * refuse a space where it exists.
 */
public final class ServiceEndpointAdmissionKey {
    /** The key. */
    public static final String KEY = AuthorityGrants.ADMISSION_KEY; // the writer's grant names it
    private static final int NO_MESSAGE = 10037;

    private record Marker(int v, String openedAt, long claimGeneration) {
    }

    private ServiceEndpointAdmissionKey() {
    }

    /** Opens admission (idempotent: an existing marker stays as it is). */
    public static void open(Connection writer, String space, long claimGeneration, Instant now) {
        new RowStore(writer, StoreNames.bucket("admission", space)).create(KEY, ClosedJson.write(ClosedJson.cotal(),
                new Marker(1, now.toString(), claimGeneration)));
    }

    /**
     * True when the space's admission is open. Throws {@code failed-precondition} when the
     * admission store cannot be read (absent, or the broker refuses), {@code unavailable} when the
     * broker does not answer.
     */
    public static boolean isOpen(Connection reader, String space) {
        String bucket = StoreNames.bucket("admission", space);
        try {
            reader.jetStreamManagement().getLastMessage("KV_" + bucket, "$KV." + bucket + "." + KEY);
            return true;
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == NO_MESSAGE) {
                return false;
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the admission store of space \"" + space
                    + "\" cannot be read (" + e.getApiErrorCode() + " " + e.getErrorDescription() + ")", e);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the admission store of space \"" + space
                    + "\" did not answer", e);
        }
    }
}
