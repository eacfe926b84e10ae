package ai.cotal.auth;

import ai.cotal.core.CotalException;

/**
 * Where a space's actor ledger and IdP pin live (SPEC §13.23): {@link #files()}, the plane's state
 * directory (the default), or {@link #jetStream()}, rows of the space's auth store, which a plane
 * and callout replicas on machines sharing nothing but the broker read alike. A space's marker
 * records its placement; a plane opened with another is refused. Immutable and thread-safe.
 */
public final class LedgerStore {
    private static final LedgerStore FILES = new LedgerStore("files");
    private static final LedgerStore STORE = new LedgerStore("store");

    private final String name;

    private LedgerStore(String name) {
        this.name = name;
    }

    /** The state directory's files (SPEC §13.14): the default. */
    public static LedgerStore files() {
        return FILES;
    }

    /** Rows of the space's auth store ({@code ledger.<owner>.<actor>}, {@code ledger.idp}). */
    public static LedgerStore jetStream() {
        return STORE;
    }

    /** The placement's word: {@code files} or {@code store}. */
    public String name() {
        return name;
    }

    /**
     * The placement a word names ({@code files} or {@code store}, as the CLI's {@code --ledger}).
     *
     * @throws CotalException {@code bad-request} naming {@code ledger} for null or another word
     */
    public static LedgerStore parse(String text) {
        if ("files".equals(text)) {
            return FILES;
        }
        if ("store".equals(text)) {
            return STORE;
        }
        throw CotalException.badRequest("ledger", "must be files or store");
    }

    @Override
    public String toString() {
        return name;
    }
}
