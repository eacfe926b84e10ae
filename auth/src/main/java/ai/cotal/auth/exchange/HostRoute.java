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
 * {@code POST /service-endpoint-host} and {@code POST /service-endpoint-authority} (SPEC §13.1,
 * docs/service-endpoints.md). The body is {@code {idpToken, actor, request}}: no granter. The
 * route verifies the IdP token against the space's pin and derives the owner; the owner acts
 * through {@code actor}. On the loopback face (which already demanded the capability) name-bind
 * and revoke run as the operator, audited as the proved subject; everything else, and every
 * request on the public face, runs as the proved owner. The authority route admits
 * {@code register} only; the host route answers it {@code unsupported}. The door checks (method,
 * origin, type, throttle, capability, size) are the caller's ({@link ExchangeRoutes}); typed failures
 * answer through the one mapping of {@link Refusals}.
 */
final class HostRoute {
    private static final Set<String> FIELDS = Set.of("idpToken", "actor", "request");

    /** An HTTP answer: status and JSON body. */
    record Answer(int status, byte[] body) {
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
        String actor;
        try {
            JsonNode root = HostJson.tree(body, "body");
            if (root == null || !root.isObject()) {
                return error(400, "the body must be an object {idpToken, actor, request}");
            }
            for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
                String name = names.next();
                if (!FIELDS.contains(name)) {
                    return error(400, HostJson.fieldName(name) + ": unknown field; the body is {idpToken, actor, request}");
                }
            }
            idpToken = text(root, "idpToken");
            actor = text(root, "actor");
            if (idpToken == null || idpToken.isEmpty()) {
                return error(400, "idpToken: required; the body is {idpToken, actor, request}");
            }
            if (actor == null || !actor.matches("[A-Za-z0-9_]{1,64}")) {
                return error(400, "actor: required, letters, digits and _ (1 to 64)");
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
            boolean operator = loopback && (request instanceof HostRequest.NameBind || request instanceof HostRequest.Revoke);
            granter = operator ? new Granter.Operator(auditId(idp))
                    : new Granter.Owner(plane.deriveOwner(idp.getIssuer(), idp.getSubject()), actor);
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

    /** A typed failure through the exchange's one mapping ({@link Refusals}): status and a body without internals. */
    private static Answer refused(CotalException e, HostRequest request) {
        return error(Refusals.status(e.code()), Refusals.message(e, "service-endpoint host (" + request.kind() + ")"));
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
