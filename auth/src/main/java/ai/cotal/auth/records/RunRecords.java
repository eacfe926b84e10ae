package ai.cotal.auth.records;

import ai.cotal.auth.ManagerRuns;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.id.SpaceName;
import java.util.regex.Pattern;

/**
 * The documents a manager and its callers write for runs (SPEC §14.7, §14.8), in their canonical
 * form: the run status and checkpoints a manager keeps under its instance's records keys (with its
 * registrar credential), and the served run-request subject and envelope a caller publishes.
 * Builders refuse {@code bad-request} naming the field. Stateless.
 */
public final class RunRecords {
    /** Checkpoint tokens and answer ids: 1 to 64 of {@code [A-Za-z0-9_-]}. */
    public static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** Served request ids: 16 to 64 of {@code [A-Za-z0-9_-]}. */
    public static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9_-]{16,64}");

    /** A run status document. */
    record Status(int v, String runId, String state) {
    }

    /** A checkpoint document. */
    record Checkpoint(int v, String token, String runId, String state, String settledAnswerId) {
    }

    /** A served request's envelope. */
    record Envelope(int v, String runId, String checkpoint, String answerId) {
    }

    private RunRecords() {
    }

    /** {@code svc.manager.<iid>.run.<runId>}: the run's status, in the records store. */
    public static String statusKey(String instanceId, String runId) {
        return "svc.manager." + check(InstanceId.PATTERN, instanceId, "instanceId") + ".run." + check(RunId.PATTERN, runId, "runId");
    }

    /** {@code svc.manager.<iid>.checkpoint.<token>}: a checkpoint, in the records store. */
    public static String checkpointKey(String instanceId, String token) {
        return "svc.manager." + check(InstanceId.PATTERN, instanceId, "instanceId") + ".checkpoint."
                + check(TOKEN, token, "checkpoint");
    }

    /** {@code {v, runId, state}}, state {@code running | waiting | completed | failed}. */
    public static byte[] status(String runId, String state) {
        if (!java.util.List.of("running", "waiting", "completed", "failed").contains(state)) {
            throw CotalException.badRequest("state", "must be running, waiting, completed or failed");
        }
        return ClosedJson.write(ClosedJson.cotal(), new Status(1, check(RunId.PATTERN, runId, "runId"), state));
    }

    /** A checkpoint {@code waiting}. */
    public static byte[] waiting(String token, String runId) {
        return ClosedJson.write(ClosedJson.cotal(), new Checkpoint(1, check(TOKEN, token, "checkpoint"),
                check(RunId.PATTERN, runId, "runId"), "waiting", null));
    }

    /** A checkpoint {@code resumed}, settled by {@code answerId} when it is non-null. */
    public static byte[] resumed(String token, String runId, String answerId) {
        return ClosedJson.write(ClosedJson.cotal(), new Checkpoint(1, check(TOKEN, token, "checkpoint"),
                check(RunId.PATTERN, runId, "runId"), "resumed", answerId == null ? null : check(TOKEN, answerId, "answerId")));
    }

    /**
     * {@code P.svc.manager.<owner>.run.<op>.<runId>.<requestId>}, {@code P} the subject prefix of
     * {@code space} ({@link SpaceName#subjectPrefix}): where a caller publishes a run request. For
     * a resume or an answer, {@code requestId} is the caller's accepted token
     * ({@code IssuedAuthority.acceptedToken(nonce)} of its connection's inbox nonce): the only
     * request id its credential may publish, and what the plane resolves its issuance by (SPEC
     * §14.8).
     */
    public static String servedSubject(String space, String owner, ManagerRuns.Kind op, String runId, String requestId) {
        return new SpaceName(SpaceName.of(space, "space").value()).subjectPrefix() + ".svc.manager." + Owner.of(owner, "owner")
                + ".run." + op.wire() + "." + check(RunId.PATTERN, runId, "runId") + "." + check(REQUEST_ID, requestId, "requestId");
    }

    /** The envelope {@code {v, runId, checkpoint?, answerId?}} (null for an absent field). */
    public static byte[] envelope(String runId, String checkpoint, String answerId) {
        return ClosedJson.write(ClosedJson.cotal(), new Envelope(1, check(RunId.PATTERN, runId, "runId"),
                checkpoint == null ? null : check(TOKEN, checkpoint, "checkpoint"),
                answerId == null ? null : check(TOKEN, answerId, "answerId")));
    }

    private static String check(Pattern grammar, String value, String field) {
        if (value == null || !grammar.matcher(value).matches()) {
            throw CotalException.badRequest(field, "must match " + grammar.pattern());
        }
        return value;
    }
}
