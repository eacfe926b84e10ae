package ai.cotal.signer;

import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsClaim;
import ai.cotal.core.jwt.UserClaim;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The signer's per-principal rate (SPEC §16.2, step 6): how many signatures of one profile one
 * principal had in its current minute. A window starts at the principal's first signature and
 * lasts 60 s; within it at most the profile's {@code perPrincipalPerMinute} are admitted. Of the
 * refusals in one window only the first is recorded; the rest are counted and that count is
 * carried by the principal's next recorded refusal ({@code folded}), so a flood writes at most
 * one refusal record per principal and minute. Windows live in an LRU of {@link #MAX_PRINCIPALS}
 * (an evicted principal starts a fresh window). Thread-safe.
 */
final class PrincipalRate {
    /** How many principals' windows are kept. */
    static final int MAX_PRINCIPALS = 16_384;
    private static final long MINUTE_MILLIS = 60_000;

    /**
     * What to do with one request: sign it ({@code admitted}); or refuse it, recording the
     * refusal with {@code folded} earlier unrecorded refusals ({@code record}), or refuse it
     * without a record (folded into the next one).
     */
    record Decision(boolean admitted, boolean record, long folded) {
        static final Decision ADMIT = new Decision(true, true, 0);
    }

    private static final class Window {
        long start;
        int signed;
        boolean refusalRecorded;
        long unrecorded;
    }

    private final Map<String, Window> windows = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
            return size() > MAX_PRINCIPALS;
        }
    };

    /** Decides one signature of {@code profile} for {@code principal} at {@code nowMillis}; {@code limit} 0 admits all. */
    synchronized Decision admit(SignerProfile profile, String principal, int limit, long nowMillis) {
        if (limit == 0) {
            return Decision.ADMIT;
        }
        Window w = windows.computeIfAbsent(profile.label() + " " + principal, k -> new Window());
        if (w.signed == 0 || nowMillis - w.start >= MINUTE_MILLIS || nowMillis < w.start) {
            w.start = nowMillis;
            w.signed = 0;
            w.refusalRecorded = false;
        }
        if (w.signed < limit) {
            w.signed++;
            return Decision.ADMIT;
        }
        if (w.refusalRecorded) {
            w.unrecorded++;
            return new Decision(false, false, 0);
        }
        w.refusalRecorded = true;
        long folded = w.unrecorded;
        w.unrecorded = 0;
        return new Decision(false, true, folded);
    }

    /** The principal of a user claim: {@code owner.actor} of its {@code owner:} and {@code actor:} tags, else its {@code sub}. */
    static String principal(ClaimSet<NatsClaim> claims) {
        String owner = null;
        String actor = null;
        if (claims.nats() instanceof UserClaim user && user.tags() != null) {
            for (String tag : user.tags()) {
                if (owner == null && tag.startsWith("owner:")) {
                    owner = tag.substring("owner:".length());
                } else if (actor == null && tag.startsWith("actor:")) {
                    actor = tag.substring("actor:".length());
                }
            }
        }
        return owner == null ? "sub:" + claims.sub() : owner + "." + actor;
    }

    /** How many windows are held (tests: the memory bound). */
    synchronized int held() {
        return windows.size();
    }
}
