package ai.cotal.auth.internal.text;

import ai.cotal.core.CotalException;

/**
 * A failed private-file call on the plane's state, worded by what the file is, never where it is
 * (SPEC §13.14): the workspace's private-file calls name the path they failed on, and their
 * causes' messages hold it too. The refusal keeps the code, names {@code what} (a row, the pin, a
 * directory's role), says why in words ({@link RefusalText} decides whether the original message
 * may stay) and carries no cause, so no message along it holds a path. Stateless.
 */
public final class StateFileRefusal {
    private StateFileRefusal() {
    }

    /** {@code failure} as {@code what: why}, without a path in it or under it. */
    public static CotalException of(CotalException failure, String what) {
        String message = failure.getMessage();
        String why = RefusalText.shareable(message) ? message : switch (failure.code()) {
            case PERMISSION_DENIED -> "a symbolic link is refused";
            case FAILED_PRECONDITION -> "a symbolic link or a file where a private directory belongs";
            default -> "a file-system error" + (failure.getCause() == null ? ""
                    : " (" + failure.getCause().getClass().getSimpleName() + ")");
        };
        return new CotalException(failure.code(), what + ": " + why);
    }
}
