package ai.cotal.auth.internal.run;

import ai.cotal.auth.ManagerRuns.AdmissionRequest;
import ai.cotal.auth.ManagerRuns.AttemptRequest;
import ai.cotal.auth.ManagerRuns.Holder;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.RunId;
import java.util.regex.Pattern;

/**
 * The grammars and shape of a run holder and an attempt request (SPEC §14.7), checked before
 * anything is read or written; a refusal is {@code bad-request} naming the field. Immutable,
 * thread-safe.
 */
final class RunRequestChecks {
    private final Pattern served;

    /** The checks of the space whose subject prefix is {@code prefix}. */
    RunRequestChecks(String prefix) {
        this.served = Pattern.compile(Pattern.quote(prefix)
                + "\\.svc\\.manager\\.[A-Za-z0-9_]+\\.run\\.[a-z]+\\.[A-Za-z0-9_.-]+");
    }

    /** A holder is required (its identifiers are typed, so in grammar). */
    static void holder(Holder holder) {
        if (holder == null) {
            throw CotalException.badRequest("holder", "required");
        }
    }

    /** An admission request is required (its identifiers are typed, so in grammar). */
    static void admission(AdmissionRequest request) {
        if (request == null) {
            throw CotalException.badRequest("request", "required");
        }
    }

    /** The attempt's grammars and shape; an {@code operator}'s answer may be unserved (its own). */
    void attempt(AttemptRequest r, boolean operator) {
        if (r == null || r.kind() == null) {
            throw CotalException.badRequest(r == null ? "request" : "kind", "required");
        }
        check(RunDocuments.DRIVER, r.driver(), "driver");
        boolean start = r.kind() == Kind.START;
        if (start == r.checkpoint().isPresent()) {
            throw CotalException.badRequest("checkpoint", start ? "not with start" : "required with resume and answer");
        }
        r.checkpoint().ifPresent(c -> check(RunRecords.TOKEN, c, "checkpoint"));
        if ((r.kind() == Kind.ANSWER) != r.answerId().isPresent()) {
            throw CotalException.badRequest("answerId", "required with answer, and only with answer");
        }
        r.answerId().ifPresent(a -> check(RunRecords.TOKEN, a, "answerId"));
        if (start && r.served().isPresent()) {
            throw CotalException.badRequest("served", "not with start");
        }
        if (r.kind() == Kind.ANSWER && r.served().isEmpty() && !operator) {
            throw CotalException.badRequest("served", "required with answer: every answer is a caller's");
        }
        r.served().ifPresent(s -> {
            if (s.length() > 256 || !served.matcher(s).matches()) {
                throw CotalException.badRequest("served", "must be a served run-request subject");
            }
        });
    }

    private static void check(Pattern grammar, String value, String field) {
        if (value == null || !grammar.matcher(value).matches()) {
            throw CotalException.badRequest(field, "must match " + grammar.pattern());
        }
    }
}
