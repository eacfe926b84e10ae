package ai.cotal.auth.internal.plane;

import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.core.internal.kv.StoreNames;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A plane's {@link PlaneHealth} (SPEC §13.21): its state and connections as given, and the
 * authority stores' fill from the store-pressure signal's cache (a stale cache is refreshed on
 * {@code background}; nothing here waits on the broker). Stateless.
 */
final class StoreReadings {
    private static final List<String> KINDS = List.of("auth", "issued", "accepted");

    private StoreReadings() {
    }

    static PlaneHealth health(String space, PlaneHealth.State state, Optional<String> fenceReason,
            List<PlaneConnection> connections, StorePressure pressure, Executor background,
            Optional<PlaneHealth.Callout> callout, String ledger) {
        List<PlaneHealth.StoreFill> stores = new ArrayList<>();
        for (StorePressure.Reading reading : pressure.readings(background)) {
            stores.add(new PlaneHealth.StoreFill(kind(space, reading.stream()), reading.stream(), reading.bytes(),
                    reading.maxBytes(), reading.refusing(), reading.readAtMillis() == 0 ? Optional.empty()
                            : Optional.of(Instant.ofEpochMilli(reading.readAtMillis()))));
        }
        return new PlaneHealth(state, state == PlaneHealth.State.FENCED ? fenceReason : Optional.empty(), connections,
                stores, callout, ledger);
    }

    /** {@code auth}, {@code issued} or {@code accepted}: the kind of one of the space's authority streams. */
    private static String kind(String space, String stream) {
        for (String kind : KINDS) {
            if (stream.equals(StoreNames.bucketStream(kind, space))) {
                return kind;
            }
        }
        return "other";
    }
}
