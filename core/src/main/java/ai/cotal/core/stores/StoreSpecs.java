package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.List;

/**
 * The exact stream configurations of a space's authority stores (SPEC §6). Each is a KV bucket
 * ({@code KV_cotal_<kind>_<token>}, subjects {@code $KV.cotal_<kind>_<token>.>}), file storage,
 * one replica unless the setup asks for more ({@link StoreReplicas}), limits retention, discard new, a two-minute duplicate window, and a bounded
 * {@code max_bytes} per kind (the sizing rule of SPEC §6 and docs/stores.md): the broker reserves
 * the bound in its file store, and the plane refuses budgeted writes above {@link #HIGH_WATER}
 * of it, before the broker refuses every writer.
 */
public final class StoreSpecs {
    /** How long issued and accepted rows are kept: the bounded retention of SPEC §13.15. */
    public static final Duration ISSUED_RETENTION = Duration.ofDays(7);
    /** How long a KV delete marker in the auth bucket stays before the server removes it. */
    public static final Duration AUTH_MARKER_TTL = Duration.ofHours(1);
    private static final Duration DUPLICATE_WINDOW = Duration.ofMinutes(2);
    private static final long MIB = 1024L * 1024;
    /** {@code max_bytes} of the auth store: credential rows (each its TTL, then a 1 h marker), gates, endpoint rows. */
    public static final long AUTH_BYTES = 256 * MIB;
    /** {@code max_bytes} of the records store. */
    public static final long RECORDS_BYTES = 256 * MIB;
    /** {@code max_bytes} of the issued store: four messages per issuance, kept {@link #ISSUED_RETENTION}. */
    public static final long ISSUED_BYTES = 1024 * MIB;
    /** {@code max_bytes} of the accepted store: one row per issuance, kept {@link #ISSUED_RETENTION}. */
    public static final long ACCEPTED_BYTES = 256 * MIB;
    /** {@code max_bytes} of the admission store. */
    public static final long ADMISSION_BYTES = 64 * MIB;
    /** {@code max_bytes} of the channels store. */
    public static final long CHANNELS_BYTES = 64 * MIB;
    /**
     * The smallest {@code max_bytes} an operator may give a store instead of the default (a store
     * may be bounded to fit the broker's {@code max_file_store}; see SPEC §6). Below this, or
     * unbounded, is drift (unbounded is tightened by {@link SpaceStores#setup}).
     */
    public static final long MIN_OPERATOR_BYTES = 64 * 1024;
    /** The fill (bytes used / {@code max_bytes}) above which the plane refuses budgeted writes. */
    public static final double HIGH_WATER = 0.80;

    private StoreSpecs() {
    }

    /** Every authority store of {@code space}, in creation order. */
    public static List<StreamConfiguration> authority(String space) {
        return List.of(auth(space), records(space), issued(space), accepted(space), admission(space), channels(space));
    }

    /** Every authority store of {@code space} with {@code replicas} replicas (SPEC §6), in creation order. */
    public static List<StreamConfiguration> authority(String space, int replicas) {
        return withReplicas(authority(space), replicas);
    }

    /** {@code specs} with {@code num_replicas} set to {@code replicas}; every other field unchanged. */
    static List<StreamConfiguration> withReplicas(List<StreamConfiguration> specs, int replicas) {
        return specs.stream().map(spec -> withReplicas(spec, replicas)).toList();
    }

    static StreamConfiguration withReplicas(StreamConfiguration spec, int replicas) {
        return spec.getReplicas() == replicas ? spec : StreamConfiguration.builder(spec).replicas(replicas).build();
    }

    /**
     * Gates, credential rows and the {@code plane} key. Fenced reads only (no direct get); markers
     * expire; atomic batches allowed (the plane's fenced writes, SPEC §13.13).
     */
    public static StreamConfiguration auth(String space) {
        return kv("auth", space, AUTH_BYTES).maxMessagesPerSubject(1).allowRollup(true).denyDelete(true).denyPurge(false)
                .allowDirect(false).allowMessageTtl(true).subjectDeleteMarkerTtl(AUTH_MARKER_TTL).allowAtomicPublish(true).build();
    }

    /** Service records: one value per key, never rolled up, deleted or purged; atomic batches allowed. */
    public static StreamConfiguration records(String space) {
        return kv("records", space, RECORDS_BYTES).maxMessagesPerSubject(1).allowRollup(false).denyDelete(true).denyPurge(true)
                .allowDirect(true).allowAtomicPublish(true).build();
    }

    /** Issued-authority evidence: append-only (the first message on a key is the record), bounded retention. */
    public static StreamConfiguration issued(String space) {
        return kv("issued", space, ISSUED_BYTES).maxMessagesPerSubject(-1).allowRollup(false).denyDelete(true).denyPurge(true)
                .allowDirect(false).maxAge(ISSUED_RETENTION).build();
    }

    /** Accepted rows: write-once per key (the broker refuses a second write), bounded retention. */
    public static StreamConfiguration accepted(String space) {
        return kv("accepted", space, ACCEPTED_BYTES).maxMessagesPerSubject(1).discardNewPerSubject(true).allowRollup(false)
                .denyDelete(true).denyPurge(true).allowDirect(true).maxAge(ISSUED_RETENTION).build();
    }

    /** Admission rows of runs and service endpoints: compare-and-set state, fenced reads, never deleted; atomic batches allowed. */
    public static StreamConfiguration admission(String space) {
        return kv("admission", space, ADMISSION_BYTES).maxMessagesPerSubject(1).allowRollup(false).denyDelete(true)
                .denyPurge(true).allowDirect(false).allowAtomicPublish(true).build();
    }

    /** The channel registry and the space default ({@code =defaults}). */
    public static StreamConfiguration channels(String space) {
        return kv("channels", space, CHANNELS_BYTES).maxMessagesPerSubject(1).allowRollup(true).denyDelete(true).denyPurge(false)
                .allowDirect(true).build();
    }

    private static StreamConfiguration.Builder kv(String kind, String space, long maxBytes) {
        String bucket = StoreNames.bucket(kind, space);
        return StreamConfiguration.builder().name("KV_" + bucket).subjects("$KV." + bucket + ".>").maxBytes(maxBytes)
                .retentionPolicy(RetentionPolicy.Limits).storageType(StorageType.File).replicas(1)
                .discardPolicy(DiscardPolicy.New).maxMessages(-1).maximumMessageSize(-1)
                .duplicateWindow(DUPLICATE_WINDOW);
    }
}
