package ai.cotal.auth.exchange;

import ai.cotal.auth.Lifecycles;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.Map;

/**
 * {@code POST /interactive-lifecycle/retire} and {@code POST /managed-lifecycle/retire} (SPEC
 * §14.1), on the loopback face only: the capability the door demanded is the operator's credential,
 * as it is for revoking a ledger row. The body is closed JSON {@code {owner, actor, lifecycleUid}};
 * the answer is 200 with the outcome ({@code notStarted}, {@code conflict}, {@code alreadyRetired},
 * {@code retired}). Typed refusals are the caller's to map ({@link Refusals}).
 */
final class LifecycleRoute {
    static final String INTERACTIVE = "/interactive-lifecycle/retire";
    static final String MANAGED = "/managed-lifecycle/retire";

    /** The body. */
    record Request(String owner, String actor, String lifecycleUid) {
    }

    private LifecycleRoute() {
    }

    /** Parses {@code body}, retires the lifecycle it names and answers the route's JSON. */
    static Map<String, Object> retire(Lifecycles lifecycles, byte[] body, boolean managed) {
        Request request = ClosedJson.read(ClosedJson.cotal(), body, Request.class, "body");
        require(request.owner(), "owner");
        require(request.actor(), "actor");
        require(request.lifecycleUid(), "lifecycleUid");
        Principal principal = Principal.of(request.owner(), request.actor());
        LifecycleUid uid = LifecycleUid.of(request.lifecycleUid(), "lifecycleUid");
        Lifecycles.Retirement result = managed ? lifecycles.retireManaged(principal, uid)
                : lifecycles.retireInteractive(principal, uid);
        return result.wire();
    }

    private static void require(String value, String field) {
        if (value == null) {
            throw CotalException.badRequest(field, "required; the body is {owner, actor, lifecycleUid}");
        }
    }
}
