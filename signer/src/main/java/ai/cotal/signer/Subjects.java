package ai.cotal.signer;

/**
 * NATS subject arithmetic for the signer's fence (SPEC §16.2): well-formedness and whether two
 * subjects (with {@code *} one token and {@code >} one or more trailing tokens) can match a common
 * subject. Stateless.
 */
final class Subjects {
    private Subjects() {
    }

    /** Non-empty tokens of printable ASCII without spaces; {@code >} only as the last token. */
    static boolean valid(String subject) {
        if (subject == null || subject.isEmpty()) {
            return false;
        }
        String[] tokens = subject.split("\\.", -1);
        for (int i = 0; i < tokens.length; i++) {
            String token = tokens[i];
            if (token.isEmpty() || (token.equals(">") && i != tokens.length - 1)) {
                return false;
            }
            for (int c = 0; c < token.length(); c++) {
                char ch = token.charAt(c);
                if (ch <= 0x20 || ch >= 0x7f) {
                    return false;
                }
            }
        }
        return true;
    }

    /** True when some subject matches both {@code a} and {@code b}. Both must be {@link #valid}. */
    static boolean intersects(String a, String b) {
        String[] x = a.split("\\.", -1);
        String[] y = b.split("\\.", -1);
        for (int i = 0; i < x.length && i < y.length; i++) {
            if (x[i].equals(">") || y[i].equals(">")) {
                return true;
            }
            if (!x[i].equals("*") && !y[i].equals("*") && !x[i].equals(y[i])) {
                return false;
            }
        }
        return x.length == y.length;
    }

    /**
     * True when {@code subject} may reach under {@code cotal.} outside {@code ownPrefix}
     * ({@code cotal.<token>}): another space's prefix, or a wildcard spanning spaces.
     */
    static boolean reachesAnotherSpace(String subject, String ownPrefix) {
        if (!intersects(subject, "cotal.>")) {
            return false;
        }
        String[] tokens = subject.split("\\.", -1);
        String own = ownPrefix.substring("cotal.".length());
        return !(tokens.length >= 2 && tokens[0].equals("cotal") && tokens[1].equals(own));
    }

    /** {@code subject} cut to 128 characters for a refusal's reason. */
    static String shown(String subject) {
        return subject.length() <= 128 ? subject : subject.substring(0, 128) + "...";
    }
}
