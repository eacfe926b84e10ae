package ai.cotal.auth.internal.plane;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.FencedWrite;
import ai.cotal.core.internal.kv.RowStore;
import io.nats.client.MessageTtl;
import io.nats.client.impl.Headers;
import java.util.Arrays;

/**
 * Credential rows' writes as fenced writes (SPEC §13.13 "Fenced writes", §13.14): a mint (a
 * create, or a create while the alias's head stands), its strict retry when the answer was lost,
 * and a revoke (a KV delete). A write the broker refused because the fence moved is
 * {@code unavailable}: the plane lost its claim and fences itself. Thread-safe.
 */
final class FencedCredentialWrites {
    private final FencedWrite writes;
    private final MessageTtl ttl;
    private final String subjectPrefix;

    FencedCredentialWrites(FencedWrite writes, MessageTtl ttl, String subjectPrefix) {
        this.writes = writes;
        this.ttl = ttl;
        this.subjectPrefix = subjectPrefix;
    }

    /**
     * Creates {@code key} with {@code row}; with a {@code headKey}, only while that key's last
     * message is {@code headRevision}. False when the head moved (nothing written). A lost answer
     * is retried once as a strict create of the same bytes (no marker is ever overwritten).
     */
    boolean mint(String key, byte[] row, String headKey, long headRevision, String who) {
        Headers headers = new Headers().put("Nats-TTL", ttl.getTtlString());
        if (headKey != null) {
            headers.put("Nats-Expected-Last-Subject-Sequence-Subject", subjectPrefix + headKey);
        }
        FencedWrite.Outcome first = writes.write(key, headers, row, headKey == null ? 0 : headRevision);
        switch (first.kind()) {
            case LANDED:
                return true;
            case CONDITION_FAILED:
                if (headKey != null) {
                    return false;
                }
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + who
                        + ": the fresh key was taken");
            case LOST:
                throw lost(who);
            default:
                break;
        }
        FencedWrite.Outcome again = writes.write(key, new Headers().put("Nats-TTL", ttl.getTtlString()), row, 0);
        if (again.kind() == FencedWrite.Kind.LANDED
                || again.kind() == FencedWrite.Kind.CONDITION_FAILED && landed(key, row)) {
            return true;
        }
        if (again.kind() == FencedWrite.Kind.LOST) {
            throw lost(who);
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + who
                + ": the retried create " + (again.kind() == FencedWrite.Kind.AMBIGUOUS ? "got no answer"
                : "found the key taken by something else"));
    }

    /** Writes a KV delete marker on {@code key}. */
    void revoke(String key, String id) {
        FencedWrite.Outcome outcome = writes.write(key, new Headers().put("KV-Operation", "DEL"), new byte[0], -1);
        if (outcome.kind() == FencedWrite.Kind.LANDED) {
            return;
        }
        throw outcome.kind() == FencedWrite.Kind.LOST ? lost("credential " + id)
                : new CotalException(ErrorCode.UNAVAILABLE, "cannot revoke credential " + id + " (no answer); retry");
    }

    private boolean landed(String key, byte[] row) {
        try {
            return writes.rows().lastEntry(key).filter(e -> e.op() == RowStore.Op.PUT)
                    .map(e -> Arrays.equals(e.data(), row)).orElse(false);
        } catch (CotalException e) {
            return false;
        }
    }

    private static CotalException lost(String who) {
        return new CotalException(ErrorCode.UNAVAILABLE, "cannot write for " + who
                + ": the plane lost its claim (a later plane fenced this one); it must be opened again");
    }
}
