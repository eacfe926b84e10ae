package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.JWTClaimsSet;
import java.util.Iterator;
import java.util.Set;

/**
 * {@code POST /service-endpoint-host} and {@code POST /service-endpoint-authority} (SPEC §13.18,
 * docs/service-endpoints.md). The body is {@code {idpToken, request}}: a body naming a granter or
 * an actor is refused. The route verifies the IdP token against the space's pin and derives the
 * granter: the proved owner ({@link Granter.Owner#Owner(String)}, which needs any current
 * interactive ledger row of its own to write), or, on the loopback face (which already demanded
 * the capability), the operator audited as the proved subject for name-bind and for a revoke of
 * an instance that is not the proved owner's. A decision, an owner's revoke of its own instance,
 * caller policy and the reads run as the proved owner on either face. The authority route admits
 * {@code register} only; the host route answers it {@code unsupported}. The door checks (method,
 * origin, type, throttle, capability, size) are the caller's ({@link ExchangeRoutes}); typed
 * failures answer through the one mapping of {@link Refusals}.
 */
final class HostRoute {
    private static final Set<String> FIELDS = Set.of("idpToken", "request");
    /** Fields a caller might send to choose who it acts as: the route derives that itself. */
    private static final Set<String> GRANTER_FIELDS = Set.of("granter", "actor", "owner", "auditId");
    private static final String SHAPE = "the body is {idpToken, request}";

    /** An HTTP answer: status and JSON body. */
    record Answer(int status, byte[] body, long retryAfterSeconds) {
        Answer(int status, byte[] body) {
            this(status, body, 0);
        }
    }

    private final AuthAuthorityPlane plane;
    private final ExchangeArms arms;

    HostRoute(AuthAuthorityPlane plane, ExchangeArms arms) {
        this.plane = plane;
        this.arms = arms;
    }

    Answer serve(ServiceEndpointHost host, byte[] body, boolean loopback, boolean authority) {
        HostRequest request;
        String idpToken;
        try {
            JsonNode root = HostJson.tree(body, "body");
            if (root == null || !root.isObject()) {
                return error(400, "the body must be an object: " + SHAPE);
            }
            for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
                String name = names.next();
                if (GRANTER_FIELDS.contains(name)) {
                    return error(400, name + ": not accepted: the route derives the granter from the IdP proof; " + SHAPE);
                }
                if (!FIELDS.contains(name)) {
                    return error(400, HostJson.fieldName(name) + ": unknown field; " + SHAPE);
                }
            }
            idpToken = text(root, "idpToken");
            if (idpToken == null || idpToken.isEmpty()) {
                return error(400, "idpToken: required; " + SHAPE);
            }
            JsonNode node = root.get("request");
            if (node == null || !node.isObject()) {
                return error(400, "request: must be an object");
            }
            request = HostJson.parseRequest(node);
        } catch (ContractException e) {
            return error(400, e.getMessage());
        }
        if (authority && !(request instanceof HostRequest.Register)) {
            return error(400, "the service authority route admits register only");
        }
        JWTClaimsSet idp;
        try {
            idp = arms.verifyIdp(idpToken);
        } catch (CotalException e) {
            return refused(e, request);
        }
        Granter granter;
        try {
            granter = granter(host, idp, request, loopback);
        } catch (CotalException e) {
            return refused(e, request);
        }
        try {
            HostResult result = authority ? host.admit(granter, (HostRequest.Register) request)
                    : host.serve(granter, request); // register here answers unsupported
            return new Answer(200, HostJson.writeResult(result));
        } catch (CotalException e) {
            return refused(e, request);
        }
    }

    /**
     * Who the request runs as. The proved owner, except on the loopback face for name-bind and for
     * a revoke of an instance the owner's own instance read does not find: those run as the
     * operator. A revoke's granter follows from the instance's owner, which never changes, so a
     * replay resolves to the granter its binding names. When that read fails, the owner is the
     * safe choice: an owner's revoke of an instance not its own never binds (it is {@code denied}),
     * and a tripped or unreachable host answers the write as it answers any.
     */
    private Granter granter(ServiceEndpointHost host, JWTClaimsSet idp, HostRequest request, boolean loopback) {
        Granter.Owner owner = new Granter.Owner(plane.deriveOwner(idp.getIssuer(), idp.getSubject()).value());
        if (!loopback) {
            return owner;
        }
        if (request instanceof HostRequest.NameBind) {
            return new Granter.Operator(auditId(idp));
        }
        if (request instanceof HostRequest.Revoke revoke) {
            HostResult own;
            try {
                own = host.serve(owner, new HostRequest.InstanceRead(revoke.endpoint(), revoke.instanceId()));
            } catch (CotalException e) {
                return owner;
            }
            return own.status() == HostResult.Status.COMPLETED ? owner : new Granter.Operator(auditId(idp));
        }
        return owner;
    }

    /** A typed failure through the exchange's one mapping ({@link Refusals}): status and a body without internals. */
    private static Answer refused(CotalException e, HostRequest request) {
        return new Answer(Refusals.status(e.code()), HostJson.bytes(java.util.Map.of("error", Refusals.message(e,
                "service-endpoint host (" + request.kind() + ")"))), Refusals.retryAfter(e));
    }

    /** The operator's audit id: the proved subject, printable and at most 128 characters. */
    private static String auditId(JWTClaimsSet idp) {
        String subject = idp.getSubject();
        if (subject == null || !subject.matches("[\\x21-\\x7e]{1,128}")) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the proved subject cannot serve as an audit id");
        }
        return subject;
    }

    private static String text(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw ContractException.badRequest(field, "must be a string");
        }
        return node.asText();
    }

    static Answer error(int status, String message) {
        return new Answer(status, HostJson.bytes(java.util.Map.of("error", message)));
    }
}
