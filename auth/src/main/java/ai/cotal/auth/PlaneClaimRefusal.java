package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;

/**
 * The plane claim refused (SPEC §13.13). {@link #reason()} says why; {@code unknown},
 * {@code release-unreachable} and {@code unreachable} are {@code unavailable} (retry), the rest
 * {@code failed-precondition}. Each reason has its own operator message; the {@code unknown}
 * message never tells the operator to stop another process.
 */
public final class PlaneClaimRefusal extends CotalException {
    private static final long serialVersionUID = 1L;

    /** Why the claim was refused. */
    public enum Reason {
        CORRUPT("corrupt"), LIVE_PEER("live-peer"), UNKNOWN("unknown"), CONCURRENT("concurrent"), FENCED("fenced"),
        RELEASED("released"), LOST("lost"), RELEASE_UNREACHABLE("release-unreachable"), UNREACHABLE("unreachable");

        private final String wire;

        Reason(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    private final Reason reason;

    public PlaneClaimRefusal(Reason reason, String space, String detail) {
        super(reason == Reason.UNKNOWN || reason == Reason.RELEASE_UNREACHABLE || reason == Reason.UNREACHABLE
                ? ErrorCode.UNAVAILABLE : ErrorCode.FAILED_PRECONDITION, message(reason, space, detail));
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    private static String message(Reason reason, String space, String detail) {
        String tail = detail == null || detail.isEmpty() ? "" : " (" + detail + ")";
        String s = "\"" + space + "\"";
        return switch (reason) {
            case CORRUPT -> "the plane claim of space " + s + " is unreadable" + tail + "; the authority plane will not"
                    + " open over it: inspect the 'plane' key of its auth store";
            case LIVE_PEER -> "another authority plane for space " + s + " is running" + tail + "; stop that instance"
                    + " before opening this one";
            case UNKNOWN -> "cannot tell whether the previous authority plane of space " + s + " is still running" + tail
                    + "; retry shortly, and do not delete the plane claim by hand";
            case CONCURRENT -> "another authority plane of space " + s + " is opening at the same moment" + tail
                    + "; retry";
            case FENCED -> "the authority plane of space " + s + " detected a fault and stopped serving" + tail;
            case RELEASED -> "the authority plane of space " + s + " is closing" + tail;
            case LOST -> "the authority plane of space " + s + " no longer holds its claim" + tail
                    + "; another instance took over";
            case RELEASE_UNREACHABLE -> "the broker could not be reached to release the plane claim of space " + s + tail
                    + "; call close() again once the broker is reachable";
            case UNREACHABLE -> "the plane claim of space " + s + " cannot be read now" + tail + "; nothing was decided"
                    + " from it: retry shortly";
        };
    }
}
