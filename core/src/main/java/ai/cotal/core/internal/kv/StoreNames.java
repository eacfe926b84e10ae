package ai.cotal.core.internal.kv;

import ai.cotal.core.id.SpaceName;
import java.util.List;

/**
 * The JetStream names a space owns, derived from its token {@code s}: message streams
 * ({@code CHAT_s}, {@code DM_s}, ...) and KV buckets ({@code cotal_<kind>_s}, stream
 * {@code KV_cotal_<kind>_s}). Credential profiles enumerate these names; they never grant
 * {@code $JS.>}.
 */
public final class StoreNames {
    /** KV bucket kinds that hold authority: created, then verified; drift is refused. */
    public static final List<String> AUTHORITY_BUCKETS = List.of("auth", "records", "issued", "accepted", "admission",
            "channels");
    /** Other KV bucket kinds a space uses. */
    public static final List<String> SPACE_BUCKETS = List.of("members", "acl", "membership", "presence", "delivery",
            "manager");
    /** KV bucket kinds whose rows expire (TTL buckets, reconciled by setup). */
    public static final List<String> TTL_BUCKETS = List.of("presence", "delivery", "manager");
    /** Message stream prefixes. */
    public static final List<String> STREAM_PREFIXES = List.of("CHAT_", "DM_", "TASK_", "INBOX_", "DLV_");
    /** Endpoint-plane stream prefixes (SPEC §6.1). */
    public static final List<String> ENDPOINT_PREFIXES = List.of("EPJ_", "EPF_", "EPE_", "EPR_", "EPT_REQ_", "EPT_",
            "EPW_", "WFJ_", "EPC_");
    /** The object store kind of a space's artifacts: bucket {@code cotal_artifacts_<token>}. */
    public static final String ARTIFACTS = "artifacts";

    private StoreNames() {
    }

    /** {@code cotal_<kind>_<token>}. */
    public static String bucket(String kind, String space) {
        return "cotal_" + kind + "_" + SpaceName.token(space);
    }

    /** The stream behind a bucket: {@code KV_cotal_<kind>_<token>}. */
    public static String bucketStream(String kind, String space) {
        return "KV_" + bucket(kind, space);
    }

    /** A message stream: {@code <prefix><token>}, e.g. {@code CHAT_alpha}. */
    public static String stream(String prefix, String space) {
        return prefix + SpaceName.token(space);
    }

    /** The stream behind the artifact object store: {@code OBJ_cotal_artifacts_<token>}. */
    public static String artifactStream(String space) {
        return "OBJ_" + bucket(ARTIFACTS, space);
    }

    /**
     * Every stream name a space owns: message streams, every bucket's stream, the endpoint-plane
     * streams and the artifact store's stream.
     */
    public static List<String> allStreams(String space) {
        java.util.ArrayList<String> names = new java.util.ArrayList<>();
        STREAM_PREFIXES.forEach(prefix -> names.add(stream(prefix, space)));
        AUTHORITY_BUCKETS.forEach(kind -> names.add(bucketStream(kind, space)));
        SPACE_BUCKETS.forEach(kind -> names.add(bucketStream(kind, space)));
        ENDPOINT_PREFIXES.forEach(prefix -> names.add(stream(prefix, space)));
        names.add(artifactStream(space));
        return List.copyOf(names);
    }
}
