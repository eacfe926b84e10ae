package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.kv.RowStore;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The store placement's IdP pin (SPEC §13.23): the row {@code ledger.idp}, closed camelCase
 * JSON {@code {ver: 1, kind: stock | oidc, url, issuer, audience, jwksUri, algorithms?}}
 * ({@code algorithms} exactly with {@code oidc}), re-validated at every read as {@code idp.json}
 * is. A pin is created at the key's revision (none, or a move's delete) and never rewritten:
 * the same provider again answers the pin there, another is {@code failed-precondition}. A lost
 * CAS reads once more and answers from what stands; a lost answer reads the key back. Thread-safe.
 */
final class StorePin {
    static final String KEY = StoreActorLedger.PREFIX + "idp";
    private static final String REFUSED = "; re-pinning to another identity provider is refused";

    private record Document(Integer ver, String kind, String url, String issuer, String audience, String jwksUri,
            List<String> algorithms) {
    }

    private final RowStore writer;
    private final RowStore reader;

    StorePin(RowStore writer, RowStore reader) {
        this.writer = writer;
        this.reader = reader;
    }

    /** The pin, read fresh on the reader and re-validated; empty when none (or a move's delete). */
    Optional<IdpPin> read() {
        return pinOf(entry(reader));
    }

    IdpPin pinStock(String url) {
        IdpPin wanted = IdpPin.stock(url);
        return pin(there -> wanted.equals(there) ? Optional.of(there) : Optional.empty(), () -> wanted);
    }

    /** The oidc pin; the same provider with another algorithm list re-pins it (SPEC §13.14, {@link IdpPin#sameOidcProvider}). */
    IdpPin pinOidc(String issuer, String clientId, List<String> algorithms) {
        IdpPin.checkOidc(issuer, clientId, algorithms);
        List<String> algs = List.copyOf(algorithms);
        return pin(there -> IdpPin.sameOidcProvider(there, issuer, clientId, algs), () -> IdpPin.discover(issuer, clientId, algs));
    }

    /**
     * Reads the key and decides: {@code keep} answers the pin to keep for the pin there (itself,
     * or its re-pin, written at its revision) or empty for another provider, which is refused;
     * none creates {@code make}'s pin (made once) at the key's revision. Decides at most twice.
     */
    private IdpPin pin(java.util.function.Function<IdpPin, Optional<IdpPin>> keep, Supplier<IdpPin> make) {
        IdpPin made = null;
        for (int round = 0; round < 2; round++) {
            Optional<RowStore.Entry> entry = entry(writer);
            Optional<IdpPin> there = pinOf(entry);
            IdpPin target;
            if (there.isPresent()) {
                IdpPin kept = keep.apply(there.get()).orElseThrow(() -> new CotalException(ErrorCode.FAILED_PRECONDITION,
                        "the space is pinned to " + there.get().url() + REFUSED));
                if (kept.equals(there.get())) {
                    return kept;
                }
                target = kept; // the same provider's re-pin
            } else {
                if (made == null) {
                    made = make.get();
                }
                target = made;
            }
            byte[] bytes = encode(target);
            long revision = entry.map(RowStore.Entry::revision).orElse(0L);
            try {
                if (writer.compareAndSet(KEY, bytes, revision).isPresent()) {
                    return target;
                }
            } catch (CotalException e) {
                if (e.code() != ErrorCode.UNAVAILABLE) {
                    throw new CotalException(e.code(), "the IdP pin cannot be written: the broker refused the write", e);
                }
                Optional<RowStore.Entry> back = entry(writer);
                if (back.isPresent() && back.get().op() == RowStore.Op.PUT && Arrays.equals(back.get().data(), bytes)) {
                    return target;
                }
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "the IdP pin cannot be written now; retry shortly");
    }

    private static Optional<RowStore.Entry> entry(RowStore rows) {
        try {
            return rows.lastEntry(KEY);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the IdP pin cannot be read now; retry shortly", e);
        }
    }

    private static Optional<IdpPin> pinOf(Optional<RowStore.Entry> entry) {
        if (entry.isEmpty() || entry.get().op() == RowStore.Op.DELETE) {
            return Optional.empty();
        }
        if (entry.get().op() != RowStore.Op.PUT) {
            throw new CotalException(ErrorCode.DATA_LOSS, KEY + " is invalid: a marker stands where the pin belongs");
        }
        return Optional.of(parse(entry.get().data()));
    }

    static IdpPin parse(byte[] data) {
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), data, Document.class, KEY);
            if (doc.ver() == null || doc.ver() != 1) {
                throw CotalException.badRequest("ver", "must be 1");
            }
            IdpPin pin;
            if ("oidc".equals(doc.kind())) {
                if (doc.algorithms() == null || doc.algorithms().contains(null)) {
                    throw CotalException.badRequest("algorithms", "required with the kind oidc, each a name");
                }
                pin = new IdpPin(IdpPin.Kind.OIDC, doc.url(), doc.issuer(), doc.audience(), doc.jwksUri(), doc.algorithms());
            } else if ("stock".equals(doc.kind())) {
                if (doc.algorithms() != null) {
                    throw CotalException.badRequest("algorithms", "goes with the kind oidc only");
                }
                pin = new IdpPin(doc.url(), doc.issuer(), doc.audience(), doc.jwksUri());
            } else {
                throw CotalException.badRequest("kind", "must be stock or oidc");
            }
            IdpPin.checkStored(pin);
            return pin;
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, KEY + " is invalid: " + e.getMessage(), e);
        }
    }

    static byte[] encode(IdpPin pin) {
        return ClosedJson.write(ClosedJson.cotal(), pin.kind() == IdpPin.Kind.STOCK
                ? new Document(1, "stock", pin.url(), pin.issuer(), pin.audience(), pin.jwksUri(), null)
                : new Document(1, "oidc", pin.url(), pin.issuer(), pin.audience(), pin.jwksUri(), pin.algorithms()));
    }
}
