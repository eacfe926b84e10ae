package ai.cotal.auth.exchange;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator's actor routes (SPEC §13.18), on the loopback face only, behind the exchange's door
 * and its capability: {@code POST /actors/grant}, {@code /actors/revoke} and {@code /actors/list}.
 * The principal is named by {@code owner} or by the IdP's {@code subject}, from which the owner is
 * derived as a person's exchange derives it ({@code deriveOwner(pin.issuer, subject)}), so a grant
 * by subject is exactly the row that person's exchange reads. Every write goes through the plane's
 * {@code ActorLedger}. Typed refusals are the caller's to map ({@link Refusals}).
 */
final class ActorRoute {
    static final String GRANT = "/actors/grant";
    static final String REVOKE = "/actors/revoke";
    static final String LIST = "/actors/list";

    /** The grant body. */
    record GrantRequest(String owner, String subject, String actor, List<String> scope, List<String> allowSubscribe,
            List<String> allowPublish, String label) {
    }

    /** The revoke body. */
    record RevokeRequest(String owner, String subject, String actor) {
    }

    /** The list body. */
    record ListRequest(String owner, String subject) {
    }

    private ActorRoute() {
    }

    /** Serves {@code path} (one of the three) with {@code body}; answers the route's JSON. */
    static Map<String, Object> serve(AuthAuthorityPlane plane, String path, byte[] body) {
        return switch (path) {
            case GRANT -> grant(plane, ClosedJson.read(ClosedJson.cotal(), body, GrantRequest.class, "body"));
            case REVOKE -> revoke(plane, ClosedJson.read(ClosedJson.cotal(), body, RevokeRequest.class, "body"));
            default -> list(plane, ClosedJson.read(ClosedJson.cotal(), body, ListRequest.class, "body"));
        };
    }

    private static Map<String, Object> grant(AuthAuthorityPlane plane, GrantRequest request) {
        GrantPolicy.checkHandLabel(request.label());
        Grant grant = new Grant(orEmpty(request.scope()), orEmpty(request.allowSubscribe()),
                orEmpty(request.allowPublish()), Optional.empty(), Optional.empty(), Optional.ofNullable(request.label()));
        Principal principal = principal(plane, request.owner(), request.subject(), request.actor());
        return row(plane.ledger().grantActor(principal, grant));
    }

    private static Map<String, Object> revoke(AuthAuthorityPlane plane, RevokeRequest request) {
        Principal principal = principal(plane, request.owner(), request.subject(), request.actor());
        boolean present = plane.ledger().find(principal).isPresent();
        plane.ledger().revoke(principal);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("owner", principal.owner().value());
        answer.put("actor", principal.actor().value());
        answer.put("revoked", present);
        return answer;
    }

    private static Map<String, Object> list(AuthAuthorityPlane plane, ListRequest request) {
        Owner owner = owner(plane, request.owner(), request.subject());
        List<Map<String, Object>> rows = new ArrayList<>();
        plane.ledger().interactiveRows(owner).forEach(row -> rows.add(row(row)));
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("owner", owner.value());
        answer.put("actors", rows);
        return answer;
    }

    private static Principal principal(AuthAuthorityPlane plane, String owner, String subject, String actor) {
        if (actor == null) {
            throw CotalException.badRequest("actor", "is required");
        }
        Actor checked = Actor.of(actor, "actor"); // the actor's grammar before the owner is derived
        return new Principal(owner(plane, owner, subject), checked);
    }

    private static Owner owner(AuthAuthorityPlane plane, String owner, String subject) {
        if ((owner == null) == (subject == null)) {
            throw CotalException.badRequest("owner", "give exactly one of owner and subject");
        }
        if (owner != null) {
            return Owner.of(owner, "owner");
        }
        IdpPin.checkSubject(subject);
        IdpPin pin = plane.idpPin().orElseThrow(() -> new CotalException(ErrorCode.FAILED_PRECONDITION,
                "subject: no identity provider is pinned for this space; give owner"));
        return plane.deriveOwner(pin.issuer(), subject);
    }

    /** The wire form of a row; never its token hash. */
    static Map<String, Object> row(ActorRow row) {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("owner", row.owner().value());
        wire.put("actor", row.actor().value());
        wire.put("kind", row.kind() == ActorRow.Kind.INTERACTIVE ? "interactive" : "managed");
        wire.put("scope", row.scope());
        wire.put("allowSubscribe", row.allowSubscribe());
        wire.put("allowPublish", row.allowPublish());
        row.label().ifPresent(label -> wire.put("label", label));
        wire.put("lifecycleUid", row.lifecycleUid().value());
        wire.put("grantedAt", row.grantedAt());
        wire.put("source", GrantPolicy.isPolicyRow(row) ? "policy" : "operator");
        return wire;
    }

    private static List<String> orEmpty(List<String> items) {
        return items == null ? List.of() : items;
    }
}
