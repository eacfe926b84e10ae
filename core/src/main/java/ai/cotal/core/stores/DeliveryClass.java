package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.MessageInfo;
import java.io.IOException;
import java.util.Optional;

/**
 * How messages of a space's channels are delivered (SPEC §4): {@code live} (only to receivers
 * connected now) or {@code durable} (kept for receivers that come later). The space default is
 * written once, at creation, as {@code =defaults} in {@code cotal_channels_<token>}; it is never
 * inferred.
 */
public enum DeliveryClass {
    LIVE("live"),
    DURABLE("durable");

    /** The key of the space default in the channel registry. */
    public static final String DEFAULTS_KEY = "=defaults";
    private static final int WRONG_LAST_SEQUENCE = 10071;
    private static final int NO_MESSAGE = 10037;

    private final String wire;

    DeliveryClass(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The class named {@code value}; anything but {@code live} or {@code durable} is refused. */
    public static DeliveryClass parse(String value, String field) {
        for (DeliveryClass c : values()) {
            if (c.wire.equals(value)) {
                return c;
            }
        }
        throw CotalException.badRequest(field, "must be live or durable");
    }

    private record Defaults(String deliveryClass) {
    }

    /**
     * Writes the space default only when the key has never held a value; returns whether this
     * call wrote it. An existing default is never overwritten, whatever its value; an existing
     * one that does not parse, or a deleted {@code =defaults} (its tombstone), is {@code data-loss}
     * and nothing is written: the space's class is unknown and is never inferred again.
     */
    public static boolean ensureDefault(Connection connection, String space, DeliveryClass deliveryClass) {
        SpaceName.of(space, "space");
        if (deliveryClass == null) {
            throw CotalException.badRequest("deliveryClass", "must be live or durable");
        }
        byte[] value = ClosedJson.write(ClosedJson.cotal(), new Defaults(deliveryClass.wire));
        try {
            // expected revision 0: refused while the key has any record, a delete's tombstone included
            // (KeyValue.create would write over a tombstone)
            bucket(connection, space).update(DEFAULTS_KEY, value, 0);
            return true;
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                if (readDefault(connection, space).isEmpty()) {
                    throw deleted(space);
                }
                return false; // an existing default, and it is valid
            }
            throw SpaceStores.apiFailure("write the default delivery class of " + space, e);
        } catch (IOException e) {
            throw SpaceStores.unavailable("write the default delivery class of " + space, e);
        }
    }

    /** The space default; empty when it was never written. A value that does not parse is {@code data-loss}. */
    public static Optional<DeliveryClass> readDefault(Connection connection, String space) {
        try {
            KeyValueEntry entry = bucket(connection, space).get(DEFAULTS_KEY); // null for a tombstone too
            if (entry == null) {
                if (tombstoned(connection, space)) {
                    throw deleted(space);
                }
                return Optional.empty();
            }
            Defaults defaults;
            try {
                defaults = ClosedJson.read(ClosedJson.cotal(), entry.getValue(), Defaults.class, DEFAULTS_KEY);
                return Optional.of(parse(defaults.deliveryClass(), DEFAULTS_KEY + ".deliveryClass"));
            } catch (CotalException e) {
                throw new CotalException(ErrorCode.DATA_LOSS, "the default delivery class of " + space + " is invalid: "
                        + e.getMessage());
            }
        } catch (JetStreamApiException e) {
            throw SpaceStores.apiFailure("read the default delivery class of " + space, e);
        } catch (IOException e) {
            throw SpaceStores.unavailable("read the default delivery class of " + space, e);
        }
    }

    /**
     * The effective class of a channel: its own class when it has one, else the space default.
     * Neither is {@code failed-precondition}: the default must have been written at creation.
     */
    public static DeliveryClass resolve(Optional<DeliveryClass> channelClass, Connection connection, String space) {
        if (channelClass.isPresent()) {
            return channelClass.get();
        }
        return readDefault(connection, space).orElseThrow(() -> CotalException.failedPrecondition("space " + space
                + " has no default delivery class: provisioning must write it (DeliveryClass.ensureDefault)"));
    }

    private static CotalException deleted(String space) {
        return new CotalException(ErrorCode.DATA_LOSS, StoreNames.bucket("channels", space) + " " + DEFAULTS_KEY
                + " was deleted: the default delivery class is never removed, and is not written again");
    }

    /**
     * Whether the key's last record is a delete or purge (KeyValue.get hides those): the stream's
     * last message on the key's subject, read with {@code STREAM.MSG.GET}, which every reader of
     * the registry may send. Asked only when the key shows no value.
     */
    private static boolean tombstoned(Connection connection, String space) throws IOException, JetStreamApiException {
        String bucket = StoreNames.bucket("channels", space);
        try {
            MessageInfo last = connection.jetStreamManagement().getLastMessage("KV_" + bucket, "$KV." + bucket + "."
                    + DEFAULTS_KEY);
            String operation = last.getHeaders() == null ? null : last.getHeaders().getFirst("KV-Operation");
            return operation != null && !operation.equals("PUT");
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == NO_MESSAGE) {
                return false;
            }
            throw e;
        }
    }

    private static KeyValue bucket(Connection connection, String space) throws IOException {
        return connection.keyValue(StoreNames.bucket("channels", space));
    }
}
