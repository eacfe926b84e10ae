package ai.cotal.auth.internal.ledger;

/** Where a space's actor ledger and IdP pin live (SPEC §13.23). */
public enum Placement {
    /** The state directory's files (SPEC §13.14), the default. */
    FILES("files"),
    /** The {@code ledger.*} rows of the space's auth store. */
    STORE("store");

    private final String word;

    Placement(String word) {
        this.word = word;
    }

    /** The placement's word, as markers and health report it: {@code files} or {@code store}. */
    public String word() {
        return word;
    }
}
