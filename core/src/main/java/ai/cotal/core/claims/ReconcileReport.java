package ai.cotal.core.claims;

import java.util.List;

/**
 * What {@code reconcile} found and did. It pushes only what is missing or older on the broker and
 * never deletes.
 *
 * @param pushed       accounts whose expected claim was missing or older on the broker, now pushed
 * @param unchanged    accounts the broker already held exactly as expected
 * @param newerOnBroker accounts the broker holds a newer claim of than the host expects (left alone)
 * @param unexpected   accounts the broker holds that the host did not name (reported, never deleted)
 */
public record ReconcileReport(List<String> pushed, List<String> unchanged, List<String> newerOnBroker,
        List<String> unexpected) {
    public ReconcileReport {
        pushed = List.copyOf(pushed);
        unchanged = List.copyOf(unchanged);
        newerOnBroker = List.copyOf(newerOnBroker);
        unexpected = List.copyOf(unexpected);
    }
}
