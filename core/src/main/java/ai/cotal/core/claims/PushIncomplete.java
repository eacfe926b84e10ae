package ai.cotal.core.claims;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;

/**
 * A push that some expected server did not confirm within the wait (SPEC §5.1 step 5):
 * {@code deadline-exceeded}, naming each missing server and the ones that answered. The claim was
 * sent: the servers that answered hold it, and a missing one may hold it too. Pushing the same
 * claim again once the missing servers are back converges.
 */
public final class PushIncomplete extends CotalException {
    private static final long serialVersionUID = 1L;

    private final transient PushResult result;

    PushIncomplete(PushResult result, long waitedMillis) {
        super(ErrorCode.DEADLINE_EXCEEDED, "no answer within " + waitedMillis + " ms to the push of " + result.account()
                + " from " + result.missing() + " (answered: " + result.serverNames() + "); it may have landed there:"
                + " push the same claim again once they are back (a push of the same claim is idempotent and converges)");
        this.result = result;
    }

    /** What the push reached: {@link PushResult#serverNames()} answered, {@link PushResult#missing()} did not. */
    public PushResult result() {
        return result;
    }

    /** The expected servers that did not answer. */
    public List<String> missing() {
        return result.missing();
    }
}
