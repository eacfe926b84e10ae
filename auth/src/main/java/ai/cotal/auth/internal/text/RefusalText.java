package ai.cotal.auth.internal.text;

import java.util.regex.Pattern;

/**
 * The one rule for whether a refusal's message may leave the process as it is, on every face
 * (SPEC §2): the callout's refusals (which nats-server logs) and the HTTP faces' 4xx bodies. A
 * message may travel only when it is at most {@value #MAX_LENGTH} printable ASCII characters with
 * no path separator ({@code /} or {@code \}), no exception or error class name and nothing shaped
 * like an nkey seed; any other message is replaced by its kind of failure. Stateless.
 */
public final class RefusalText {
    private static final int MAX_LENGTH = 400;
    private static final Pattern PRINTABLE = Pattern.compile("[\\x20-\\x7e]+");
    private static final Pattern INTERNAL = Pattern.compile(
            "[/\\\\]|[A-Za-z0-9_$]*(Exception|Error)\\b|S[OAUNCXP][A-Z2-7]{40,}");

    private RefusalText() {
    }

    /** Whether {@code message} may travel to a client or the broker's log as it is. */
    public static boolean shareable(String message) {
        return message != null && message.length() <= MAX_LENGTH && PRINTABLE.matcher(message).matches()
                && !INTERNAL.matcher(message).find();
    }
}
