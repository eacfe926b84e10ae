package ai.cotal.auth.internal.run;

import ai.cotal.auth.Granter;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.internal.manager.ServingDocuments;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The closed documents of SPEC §14.7 and §14.8 as the plane reads and writes them: admission and
 * attempt rows (admission store), a manager's run status and checkpoints (records store) and a
 * served request's subject and envelope. A stored row that breaks a rule is {@code data-loss}
 * naming its key. Stateless.
 */
final class RunDocuments {
    // the serving records' grammars (SPEC §14.2); a lifecycle uid has the instance id's shape (§13.14)
    static final Pattern OWNER = Owner.PATTERN;
    static final Pattern ACTOR = Actor.PATTERN;
    static final Pattern UID = LifecycleUid.PATTERN;
    static final Pattern INSTANCE_ID = InstanceId.PATTERN;
    static final Pattern DRIVER = Pattern.compile("U[A-Z2-7]{55}");
    /** The last token of a served resume or answer: its caller's accepted token (SPEC §14.8). */
    static final Pattern CALLER = Pattern.compile("[0-9a-f]{32}");
    static final Pattern ISSUED = Pattern.compile(String.join("\\.", Owner.PATTERN.pattern(), Actor.PATTERN.pattern(),
            LifecycleUid.PATTERN.pattern(), CALLER.pattern()));

    /** {@code run.manager.<runId>.admission}. */
    record AdmissionRow(Integer v, String runId, String owner, String instanceId, String actor, String lifecycleUid,
            String admittedAt) {
        boolean sameTerms(AdmissionRow other) {
            return runId.equals(other.runId) && owner.equals(other.owner) && instanceId.equals(other.instanceId)
                    && actor.equals(other.actor) && lifecycleUid.equals(other.lifecycleUid);
        }
    }

    /**
     * {@code run.manager.<runId>.attempt.<attemptId>}; {@code issued} the issuance that backs a
     * served attempt's credential ({@code <o>.<a>.<uid>.<gen>}, SPEC §14.7), null otherwise;
     * {@code operator} the audit id of an operator's attempt, null on a manager's.
     */
    record AttemptRow(Integer v, String runId, String attemptId, String kind, String driver, String checkpoint,
            String answerId, String served, String issuedAt, String expiresAt, String jwt, String issued,
            String operator) {
        boolean sameTerms(AttemptRow other) {
            return runId.equals(other.runId) && attemptId.equals(other.attemptId) && kind.equals(other.kind)
                    && driver.equals(other.driver) && Objects.equals(checkpoint, other.checkpoint)
                    && Objects.equals(answerId, other.answerId) && Objects.equals(served, other.served)
                    && Objects.equals(operator, other.operator);
        }
    }

    record StatusRow(Integer v, String runId, String state) {
    }

    record CheckpointRow(Integer v, String token, String runId, String state, String settledAnswerId) {
        boolean waiting() {
            return state.equals("waiting");
        }

        /** {@code checkpointSettled}: resumed with a settled answer. */
        boolean settled() {
            return state.equals("resumed") && settledAnswerId != null;
        }
    }

    record EnvelopeDoc(Integer v, String runId, String checkpoint, String answerId) {
    }

    /**
     * What a served request asked: its subject's owner, op and run, the caller (the accepted token
     * its subject ends in, SPEC §14.8), and its envelope's fields.
     */
    record Observed(String owner, Kind op, String runId, String caller, Optional<String> checkpoint,
            Optional<String> answerId) {
    }

    private RunDocuments() {
    }

    static String admissionKey(String runId) {
        return "run.manager." + runId + ".admission";
    }

    static String attemptKey(String runId, String attemptId) {
        return "run.manager." + runId + ".attempt." + attemptId;
    }

    static byte[] write(Object row) {
        return ClosedJson.write(ClosedJson.cotal(), row);
    }

    static AdmissionRow admission(String runId, byte[] data) {
        String key = admissionKey(runId);
        AdmissionRow d = read(data, AdmissionRow.class, key);
        if (d.v() == null || d.v() != 1 || !runId.equals(d.runId()) || !matches(OWNER, d.owner())
                || !matches(INSTANCE_ID, d.instanceId()) || !matches(ACTOR, d.actor()) || !matches(UID, d.lifecycleUid())
                || !ClosedJson.isInstant(d.admittedAt())) {
            throw corrupt(key, "version, runId, owner, instanceId, actor, lifecycleUid or admittedAt");
        }
        return d;
    }

    static AttemptRow attempt(String runId, String attemptId, byte[] data) {
        String key = attemptKey(runId, attemptId);
        AttemptRow d = read(data, AttemptRow.class, key);
        if (d.v() == null || d.v() != 1 || !runId.equals(d.runId()) || !attemptId.equals(d.attemptId())
                || Kind.of(d.kind()).isEmpty() || !matches(DRIVER, d.driver()) || !ClosedJson.isInstant(d.issuedAt())
                || !ClosedJson.isInstant(d.expiresAt()) || d.jwt() == null || d.jwt().isEmpty()
                || (d.issued() != null && !matches(ISSUED, d.issued()))
                || (d.operator() != null && !auditId(d.operator()))) {
            throw corrupt(key, "version, runId, attemptId, kind, driver, times, jwt or operator");
        }
        return d;
    }

    static StatusRow status(String key, String runId, byte[] data) {
        StatusRow d = read(data, StatusRow.class, key);
        if (d.v() == null || d.v() != 1 || !runId.equals(d.runId())
                || !java.util.List.of("running", "waiting", "completed", "failed").contains(String.valueOf(d.state()))) {
            throw corrupt(key, "version, runId or state");
        }
        return d;
    }

    static CheckpointRow checkpoint(String key, String token, byte[] data) {
        CheckpointRow d = read(data, CheckpointRow.class, key);
        boolean state = "waiting".equals(d.state()) ? d.settledAnswerId() == null
                : "resumed".equals(d.state()) && (d.settledAnswerId() == null || matches(RunRecords.TOKEN, d.settledAnswerId()));
        if (d.v() == null || d.v() != 1 || !token.equals(d.token()) || !matches(RunId.PATTERN, d.runId()) || !state) {
            throw corrupt(key, "version, token, runId, state or settledAnswerId");
        }
        return d;
    }

    /**
     * A served resume or answer as observed:
     * {@code <prefix>.svc.manager.<owner>.run.<op>.<runId>.<caller>} ({@code prefix} the space's
     * subject prefix, {@code cotal.<token>}; {@code caller} an accepted token) and its envelope;
     * empty when either does not parse, or for a start (none is ever forwarded for issuance): the
     * observer ignores it.
     */
    static Optional<Observed> observed(String prefix, String subject, byte[] data) {
        if (!subject.startsWith(prefix + ".")) {
            return Optional.empty();
        }
        String[] t = subject.substring(prefix.length() + 1).split("\\.", -1);
        if (t.length != 7 || !t[0].equals("svc") || !t[1].equals("manager") || !t[3].equals("run")
                || !matches(OWNER, t[2]) || !matches(RunId.PATTERN, t[5]) || !matches(CALLER, t[6])) {
            return Optional.empty();
        }
        Optional<Kind> op = Kind.of(t[4]);
        if (op.isEmpty() || op.get() == Kind.START) {
            return Optional.empty();
        }
        EnvelopeDoc d;
        try {
            d = ClosedJson.read(ClosedJson.cotal(), data, EnvelopeDoc.class, "envelope");
        } catch (CotalException e) {
            return Optional.empty();
        }
        boolean checkpoint = matches(RunRecords.TOKEN, d.checkpoint());
        boolean answer = op.get() == Kind.ANSWER ? matches(RunRecords.TOKEN, d.answerId()) : d.answerId() == null;
        if (d.v() == null || d.v() != 1 || !t[5].equals(d.runId()) || !checkpoint || !answer) {
            return Optional.empty();
        }
        return Optional.of(new Observed(t[2], op.get(), t[5], t[6], Optional.ofNullable(d.checkpoint()),
                Optional.ofNullable(d.answerId())));
    }

    /** An operator's audit id in the grammar of {@link Granter.Operator}. */
    private static boolean auditId(String value) {
        try {
            new Granter.Operator(value);
            return true;
        } catch (CotalException e) {
            return false;
        }
    }

    static boolean matches(Pattern grammar, String value) {
        return value != null && grammar.matcher(value).matches();
    }

    private static <T> T read(byte[] data, Class<T> type, String key) {
        try {
            return ClosedJson.read(ClosedJson.cotal(), data, type, key);
        } catch (CotalException e) {
            throw corrupt(key, e.getMessage());
        }
    }

    static CotalException corrupt(String key, String why) {
        return new CotalException(ErrorCode.DATA_LOSS, "the run record " + key + " is corrupt (" + why + ")");
    }
}
