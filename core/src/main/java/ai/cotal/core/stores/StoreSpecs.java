package ai.cotal.core.stores;

import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.List;

/**
 * The exact stream configurations of a space's authority stores (SPEC §6). Each is a KV bucket
 * ({@code KV_cotal_<kind>_<token>}, subjects {@code $KV.cotal_<kind>_<token>.>}), file storage,
 * one replica, limits retention, discard new, no size limits, a two-minute duplicate window.
 */
public final class StoreSpecs {
    /** How long issued and accepted rows are kept: the bounded retention of SPEC §13.15. */
    public static final Duration ISSUED_RETENTION = Duration.ofDays(7);
    /** How long a KV delete marker in the auth bucket stays before the server removes it. */
    public static final Duration AUTH_MARKER_TTL = Duration.ofHours(1);
    private static final Duration DUPLICATE_WINDOW = Duration.ofMinutes(2);

    private StoreSpecs() {
    }

    /** Every authority store of {@code space}, in creation order. */
    public static List<StreamConfiguration> authority(String space) {
        return List.of(auth(space), records(space), issued(space), accepted(space), admission(space), channels(space));
    }

    /** Gates, credential rows and the {@code plane} key. Fenced reads only (no direct get); markers expire. */
    public static StreamConfiguration auth(String space) {
        return kv("auth", space).maxMessagesPerSubject(1).allowRollup(true).denyDelete(true).denyPurge(false)
                .allowDirect(false).allowMessageTtl(true).subjectDeleteMarkerTtl(AUTH_MARKER_TTL).build();
    }

    /** Service records: one value per key, never rolled up, deleted or purged. */
    public static StreamConfiguration records(String space) {
        return kv("records", space).maxMessagesPerSubject(1).allowRollup(false).denyDelete(true).denyPurge(true)
                .allowDirect(true).build();
    }

    /** Issued-authority evidence: append-only (the first message on a key is the record), bounded retention. */
    public static StreamConfiguration issued(String space) {
        return kv("issued", space).maxMessagesPerSubject(-1).allowRollup(false).denyDelete(true).denyPurge(true)
                .allowDirect(false).maxAge(ISSUED_RETENTION).build();
    }

    /** Accepted rows: write-once per key (the broker refuses a second write), bounded retention. */
    public static StreamConfiguration accepted(String space) {
        return kv("accepted", space).maxMessagesPerSubject(1).discardNewPerSubject(true).allowRollup(false)
                .denyDelete(true).denyPurge(true).allowDirect(true).maxAge(ISSUED_RETENTION).build();
    }

    /** Admission rows of runs and service endpoints: compare-and-set state, fenced reads, never deleted. */
    public static StreamConfiguration admission(String space) {
        return kv("admission", space).maxMessagesPerSubject(1).allowRollup(false).denyDelete(true).denyPurge(true)
                .allowDirect(false).build();
    }

    /** The channel registry and the space default ({@code =defaults}). */
    public static StreamConfiguration channels(String space) {
        return kv("channels", space).maxMessagesPerSubject(1).allowRollup(true).denyDelete(true).denyPurge(false)
                .allowDirect(true).build();
    }

    private static StreamConfiguration.Builder kv(String kind, String space) {
        String bucket = StoreNames.bucket(kind, space);
        return StreamConfiguration.builder().name("KV_" + bucket).subjects("$KV." + bucket + ".>")
                .retentionPolicy(RetentionPolicy.Limits).storageType(StorageType.File).replicas(1)
                .discardPolicy(DiscardPolicy.New).maxMessages(-1).maxBytes(-1).maxMsgSize(-1)
                .duplicateWindow(DUPLICATE_WINDOW);
    }
}
