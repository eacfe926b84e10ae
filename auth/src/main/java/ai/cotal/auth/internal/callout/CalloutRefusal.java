package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.text.RefusalText;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.regex.Pattern;

/**
 * The callout's one door for refusal text (SPEC §13.16): nats-server logs the {@code error} of a
 * refusal, so it names the field or the kind of failure only. A message reaches the broker as
 * it is only when {@link RefusalText#shareable} allows it; any other refusal (and any failure that
 * is not a {@link CotalException}) is replaced by its code's generic text. Stateless.
 */
final class CalloutRefusal {
    private static final Pattern PATH = Pattern.compile("(?:[A-Za-z]:)?[/\\\\][^\\s:()'\"]*");

    private CalloutRefusal() {
    }

    /** The text a refusal carries for {@code failure}. */
    static String reason(RuntimeException failure) {
        if (failure instanceof CotalException e) {
            String message = e.getMessage();
            return RefusalText.shareable(message) ? message : generic(e.code());
        }
        return generic(ErrorCode.INTERNAL);
    }

    /**
     * The failure's message for the service's own log: every path-like token replaced by
     * {@code <path>}, the causes' class names appended (never their messages).
     */
    static String withoutPaths(RuntimeException failure) {
        StringBuilder out = new StringBuilder(PATH.matcher(String.valueOf(failure.getMessage())).replaceAll("<path>"));
        for (Throwable cause = failure.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            out.append(" <- ").append(cause.getClass().getSimpleName());
        }
        return out.toString();
    }

    private static String generic(ErrorCode code) {
        return switch (code) {
            case UNAVAILABLE, DEADLINE_EXCEEDED -> "unavailable: the auth service could not check this connect now; retry"
                    + " shortly";
            case DATA_LOSS -> "data-loss: state this connect needs is unreadable; the operator's log has the detail";
            case FAILED_PRECONDITION -> "failed-precondition: the auth service's state is not usable; the operator's log"
                    + " has the detail";
            case INTERNAL -> "internal: the callout failed on this connect; the operator's log has the detail";
            default -> code.wire() + ": refused; the operator's log has the detail";
        };
    }
}
