package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.List;

/** The closed v1 rows of the issued and accepted stores (SPEC §13.15) and their keys. */
final class IssuedRows {
    private IssuedRows() {
    }

    /** The state of an issuance attempt. */
    enum State { prepared, active, aborted, revoked }

    record Evidence(Integer version, IssuedRef ref, List<Source> sources, Ceiling permissions, Long expiresAt) {
    }

    record Attempt(Integer version, State state, String digest) {
    }

    record Index(Integer version, IssuedRef ref) {
    }

    record Accepted(Integer version, IssuedRef ref) {
    }

    static String evidenceKey(IssuedRef ref) {
        return "v1." + ref.key();
    }

    static String attemptKey(IssuedRef ref) {
        return "attempt.v1." + ref.key();
    }

    static String indexKey(String sourceDigest, IssuedRef ref) {
        return "bysource.v1." + sourceDigest + "." + ref.key();
    }

    static String acceptedKey(String token) {
        return "accepted.v1." + token;
    }

    static byte[] write(Object row) {
        return ClosedJson.write(ClosedJson.cotal(), row);
    }

    /** Reads a stored row; anything that does not parse as the v1 row is {@code data-loss}. */
    static <T> T read(byte[] bytes, Class<T> type, String key) {
        T row;
        try {
            row = ClosedJson.read(ClosedJson.cotal(), bytes, type, key);
        } catch (CotalException e) {
            throw corrupt(key, e.getMessage());
        }
        Integer version = null;
        if (row instanceof Evidence e) {
            version = e.version();
        } else if (row instanceof Attempt a) {
            version = a.version();
        } else if (row instanceof Index i) {
            version = i.version();
        } else if (row instanceof Accepted a) {
            version = a.version();
        }
        if (version == null || version != 1) {
            throw corrupt(key, "version must be 1");
        }
        return row;
    }

    static CotalException corrupt(String key, String problem) {
        return new CotalException(ErrorCode.DATA_LOSS, "issued-authority row " + key + " is corrupt: " + problem);
    }
}
