package ai.cotal.core.stores;

import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/** Compares a stream's live configuration with the expected one, field by field. */
final class StoreDrift {
    private record Field(String name, Function<StreamConfiguration, Object> read) {
    }

    private static final List<Field> FIELDS = List.of(
            new Field("subjects", StreamConfiguration::getSubjects),
            new Field("retention", StreamConfiguration::getRetentionPolicy),
            new Field("storage", StreamConfiguration::getStorageType),
            new Field("num_replicas", StreamConfiguration::getReplicas),
            new Field("max_msgs", StreamConfiguration::getMaxMsgs),
            new Field("max_bytes", StreamConfiguration::getMaxBytes),
            new Field("max_msg_size", StreamConfiguration::getMaximumMessageSize),
            new Field("max_msgs_per_subject", StreamConfiguration::getMaxMsgsPerSubject),
            new Field("max_age", c -> millis(c.getMaxAge())),
            new Field("discard", StreamConfiguration::getDiscardPolicy),
            new Field("discard_new_per_subject", StreamConfiguration::isDiscardNewPerSubject),
            new Field("duplicate_window", c -> millis(c.getDuplicateWindow())),
            new Field("allow_rollup_hdrs", StreamConfiguration::getAllowRollup),
            new Field("deny_delete", StreamConfiguration::getDenyDelete),
            new Field("deny_purge", StreamConfiguration::getDenyPurge),
            new Field("allow_direct", StreamConfiguration::getAllowDirect),
            new Field("mirror_direct", StreamConfiguration::getMirrorDirect),
            new Field("allow_msg_ttl", StreamConfiguration::getAllowMessageTtl),
            new Field("subject_delete_marker_ttl", c -> millis(c.getSubjectDeleteMarkerTtl())),
            new Field("allow_msg_schedules", StreamConfiguration::getAllowMsgSchedules),
            new Field("allow_atomic", StreamConfiguration::getAllowAtomicPublish),
            new Field("no_ack", StreamConfiguration::getNoAck),
            new Field("sealed", StreamConfiguration::getSealed),
            new Field("mirror", c -> c.getMirror() == null ? "none" : "set"),
            new Field("sources", c -> c.getSources() == null || c.getSources().isEmpty() ? "none" : "set"));

    private StoreDrift() {
    }

    /**
     * The fields whose live value differs from the expected one, as {@code name: live, expected x}.
     * {@code max_bytes} is not drift when the live store carries an operator's bound of at least
     * {@link StoreSpecs#MIN_OPERATOR_BYTES} (SPEC §6); unbounded ({@code -1}) is drift here, and
     * {@link SpaceStores#setup} tightens it.
     */
    static List<String> differences(StreamConfiguration expected, StreamConfiguration live) {
        List<String> out = new ArrayList<>();
        for (Field field : FIELDS) {
            Object want = field.read().apply(expected);
            Object have = field.read().apply(live);
            if (field.name().equals("max_bytes") && operatorBound(live.getMaxBytes())) {
                continue;
            }
            if (!Objects.equals(want, have)) {
                out.add(field.name() + " is " + have + ", expected " + want);
            }
        }
        return out;
    }

    /** A bound an operator may set instead of the default: at least {@link StoreSpecs#MIN_OPERATOR_BYTES}. */
    static boolean operatorBound(long maxBytes) {
        return maxBytes >= StoreSpecs.MIN_OPERATOR_BYTES;
    }

    /** True when {@code live} differs from {@code expected} only by being unbounded (the shape before bounds). */
    static boolean onlyUnbounded(StreamConfiguration expected, StreamConfiguration live) {
        return live.getMaxBytes() == -1 && differences(expected, StreamConfiguration.builder(live)
                .maxBytes(expected.getMaxBytes()).build()).isEmpty();
    }

    /**
     * True when {@code live} differs from {@code expected} only by {@code allow_atomic} false where
     * true is expected (the shape before fenced writes, SPEC §13.13), unbounded or not.
     */
    static boolean onlyAtomic(StreamConfiguration expected, StreamConfiguration live) {
        if (!expected.getAllowAtomicPublish() || live.getAllowAtomicPublish()) {
            return false;
        }
        StreamConfiguration upgraded = StreamConfiguration.builder(live).allowAtomicPublish(true).build();
        return differences(expected, upgraded).isEmpty() || onlyUnbounded(expected, upgraded);
    }

    private static long millis(Duration duration) {
        return duration == null ? 0 : duration.toMillis();
    }
}
