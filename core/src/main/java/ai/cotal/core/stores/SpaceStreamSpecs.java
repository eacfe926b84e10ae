package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.id.SpaceName;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The exact configurations of the streams and buckets a space owns beside its authority stores
 * (SPEC §6.1): message streams, the members, ACL, membership and TTL buckets, the endpoint-plane
 * streams and the artifact object store. Every one is bounded: message and endpoint streams
 * discard their oldest messages at the bound (a history horizon, never a refused writer);
 * buckets, the contract stream and the artifact store discard new.
 */
public final class SpaceStreamSpecs {
    private static final long MIB = 1024L * 1024;
    private static final Duration TWO_MINUTES = Duration.ofMinutes(2);
    private static final Duration DAY = Duration.ofHours(24);
    /** {@code max_bytes} of {@code CHAT_}. */
    public static final long CHAT_BYTES = 1024 * MIB;
    /** {@code max_bytes} of {@code DM_}. */
    public static final long DM_BYTES = 512 * MIB;
    /** {@code max_bytes} of {@code TASK_}, {@code INBOX_} and {@code DLV_} each. */
    public static final long QUEUE_BYTES = 256 * MIB;
    /** {@code max_bytes} of the larger endpoint-plane streams (jobs, facts, events, results, work, journal). */
    public static final long ENDPOINT_BYTES = 128 * MIB;
    /** {@code max_bytes} of the timer, timer-request and contract streams. */
    public static final long ENDPOINT_SMALL_BYTES = 32 * MIB;
    /** {@code max_bytes} of the members, ACL and membership buckets. */
    public static final long REGISTRY_BYTES = 64 * MIB;
    /** {@code max_bytes} of each TTL bucket (presence, delivery and manager leases). */
    public static final long TTL_BUCKET_BYTES = 8 * MIB;
    /** {@code max_bytes} of the artifact object store. */
    public static final long ARTIFACT_BYTES = 1024 * MIB;
    /** Presence rows expire after this. */
    public static final Duration PRESENCE_TTL = Duration.ofMillis(6_000);
    /** Delivery leases expire after this. */
    public static final Duration DELIVERY_LEASE_TTL = Duration.ofMillis(30_000);
    /** Manager leases expire after this (renewed every 2.5 s). */
    public static final Duration MANAGER_LEASE_TTL = Duration.ofMillis(10_000);

    private SpaceStreamSpecs() {
    }

    /** Every store of {@code space} other than the authority stores, in creation order. */
    public static List<StreamConfiguration> all(String space) {
        List<StreamConfiguration> out = new ArrayList<>(messageStreams(space));
        out.addAll(buckets(space));
        out.addAll(endpointStreams(space));
        out.add(artifacts(space));
        return List.copyOf(out);
    }

    /** {@code CHAT_}, {@code DM_}, {@code TASK_}, {@code INBOX_}, {@code DLV_}. */
    public static List<StreamConfiguration> messageStreams(String space) {
        Duration twoHours = Duration.ofHours(2);
        return List.of(
                message(space, "CHAT_", "chat", CHAT_BYTES).maxMessagesPerSubject(1000).allowDirect(true).build(),
                message(space, "DM_", "inst", DM_BYTES).build(),
                message(space, "TASK_", "task", QUEUE_BYTES).retentionPolicy(RetentionPolicy.WorkQueue).build(),
                message(space, "INBOX_", "dinbox", QUEUE_BYTES).maxMessagesPerSubject(1000).duplicateWindow(twoHours).build(),
                message(space, "DLV_", "dlv", QUEUE_BYTES).maxMessagesPerSubject(1000).duplicateWindow(twoHours).build());
    }

    /** Members, ACL and membership, then the TTL buckets (presence in memory, delivery and manager leases). */
    public static List<StreamConfiguration> buckets(String space) {
        return List.of(bucket(space, "members", REGISTRY_BYTES).build(), bucket(space, "acl", REGISTRY_BYTES).build(),
                bucket(space, "membership", REGISTRY_BYTES).build(),
                ttl(space, "presence", PRESENCE_TTL).storageType(StorageType.Memory).build(),
                ttl(space, "delivery", DELIVERY_LEASE_TTL).build(), ttl(space, "manager", MANAGER_LEASE_TTL).build());
    }

    /** The endpoint-plane streams, {@code P.<plane>.>} each. */
    public static List<StreamConfiguration> endpointStreams(String space) {
        return List.of(
                message(space, "EPJ_", "epj", ENDPOINT_BYTES).maxAge(DAY).duplicateWindow(Duration.ofMillis(100)).build(),
                message(space, "EPF_", "epf", ENDPOINT_BYTES).maxAge(Duration.ofDays(7)).build(),
                message(space, "EPE_", "epe", ENDPOINT_BYTES).maxAge(DAY).build(),
                message(space, "EPR_", "epr", ENDPOINT_BYTES).maxAge(DAY).build(),
                message(space, "EPT_REQ_", "eptreq", ENDPOINT_SMALL_BYTES).maxAge(DAY).build(),
                message(space, "EPT_", "ept", ENDPOINT_SMALL_BYTES).maxAge(Duration.ofDays(31)).allowMessageSchedules(true).allowRollup(true)
                        .build(),
                message(space, "EPW_", "epw", ENDPOINT_BYTES).retentionPolicy(RetentionPolicy.WorkQueue).build(),
                message(space, "WFJ_", "wfj", ENDPOINT_BYTES).build(),
                message(space, "EPC_", "epc", ENDPOINT_SMALL_BYTES).maxMessagesPerSubject(1).discardPolicy(DiscardPolicy.New)
                        .discardNewPerSubject(true).denyDelete(true).denyPurge(true).build());
    }

    /** The artifact object store's stream {@code OBJ_cotal_artifacts_<token>}. */
    public static StreamConfiguration artifacts(String space) {
        String bucket = StoreNames.bucket(StoreNames.ARTIFACTS, space);
        return base(StoreNames.artifactStream(space), ARTIFACT_BYTES).subjects("$O." + bucket + ".C.>", "$O." + bucket + ".M.>")
                .discardPolicy(DiscardPolicy.New).allowRollup(true).allowDirect(true).build();
    }

    /** True for the buckets whose {@code max_age} and duplicate window setup reconciles. */
    static boolean ttlBucket(String stream, String space) {
        return StoreNames.TTL_BUCKETS.stream().anyMatch(kind -> StoreNames.bucketStream(kind, space).equals(stream));
    }

    /** Every stream's bound, summed: what one space reserves in the broker's {@code max_file_store}. */
    public static long reservedFileBytes(String space) {
        List<StreamConfiguration> every = new ArrayList<>(StoreSpecs.authority(space));
        every.addAll(all(space));
        return every.stream().filter(c -> c.getStorageType() == StorageType.File).mapToLong(StreamConfiguration::getMaxBytes)
                .sum();
    }

    private static StreamConfiguration.Builder message(String space, String prefix, String plane, long maxBytes) {
        return base(StoreNames.stream(prefix, space), maxBytes).subjects(new SpaceName(space).subjectPrefix() + "." + plane + ".>")
                .discardPolicy(DiscardPolicy.Old).maxMessagesPerSubject(-1);
    }

    private static StreamConfiguration.Builder bucket(String space, String kind, long maxBytes) {
        String bucket = StoreNames.bucket(kind, space);
        return base("KV_" + bucket, maxBytes).subjects("$KV." + bucket + ".>").discardPolicy(DiscardPolicy.New)
                .maxMessagesPerSubject(1).allowRollup(true).denyDelete(true).allowDirect(true);
    }

    private static StreamConfiguration.Builder ttl(String space, String kind, Duration ttl) {
        return bucket(space, kind, TTL_BUCKET_BYTES).maxAge(ttl).duplicateWindow(ttl);
    }

    private static StreamConfiguration.Builder base(String name, long maxBytes) {
        return StreamConfiguration.builder().name(name).maxBytes(maxBytes).retentionPolicy(RetentionPolicy.Limits)
                .storageType(StorageType.File).replicas(1).maxMessages(-1).maximumMessageSize(-1).maxAge(Duration.ZERO)
                .duplicateWindow(TWO_MINUTES);
    }
}
