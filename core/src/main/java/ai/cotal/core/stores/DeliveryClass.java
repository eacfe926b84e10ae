package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.trust.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
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
     * Writes the space default only when it is absent; returns whether this call wrote it. An
     * existing default is never overwritten, whatever its value.
     */
    public static boolean ensureDefault(Connection connection, String space, DeliveryClass deliveryClass) {
        SpaceName.check(space, "space");
        if (deliveryClass == null) {
            throw CotalException.badRequest("deliveryClass", "must be live or durable");
        }
        byte[] value = ClosedJson.write(ClosedJson.cotal(), new Defaults(deliveryClass.wire));
        try {
            bucket(connection, space).create(DEFAULTS_KEY, value);
            return true;
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                readDefault(connection, space); // an existing default must at least be valid
                return false;
            }
            throw SpaceStores.apiFailure("write the default delivery class of " + space, e);
        } catch (IOException e) {
            throw SpaceStores.unavailable("write the default delivery class of " + space, e);
        }
    }

    /** The space default; empty when it was never written. A value that does not parse is {@code data-loss}. */
    public static Optional<DeliveryClass> readDefault(Connection connection, String space) {
        try {
            KeyValueEntry entry = bucket(connection, space).get(DEFAULTS_KEY);
            if (entry == null) {
                return Optional.empty();
            }
            if (entry.getOperation() != KeyValueOperation.PUT) {
                throw new CotalException(ErrorCode.DATA_LOSS, StoreNames.bucket("channels", space) + " " + DEFAULTS_KEY
                        + " was deleted: the default delivery class is never removed");
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

    private static KeyValue bucket(Connection connection, String space) throws IOException {
        return connection.keyValue(StoreNames.bucket("channels", space));
    }
}
