package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostRequest;

/**
 * One service-endpoint instance, {@code (endpoint, instanceId)} (SPEC §13.1): what a bearer of the
 * {@value #SERVING_VIEW} view serves. Both names follow the host contract's grammars (a bad one is
 * {@code bad-request} naming the field). Immutable.
 */
public record EndpointInstance(String endpoint, String instanceId) {
    /** The bearer view of a service instance's serving connection (SPEC §13.16). */
    public static final String SERVING_VIEW = "endpoint-server";

    public EndpointInstance {
        try {
            new HostRequest.InstanceRead(endpoint, instanceId); // the contract's grammars, one place
        } catch (ContractException e) {
            throw new CotalException(ErrorCode.BAD_REQUEST, e.getMessage(), e);
        }
    }

    /**
     * The instance's subject stem {@code <prefix>.svc.ep.<tok>.<instanceId>}, {@code tok} being the
     * endpoint with {@code .} replaced by {@code _} (a subject token holds no dot; an endpoint name
     * holds no underscore, so the mapping is one to one).
     */
    public String subjectStem(String subjectPrefix) {
        return subjectPrefix + ".svc.ep." + endpoint.replace('.', '_') + "." + instanceId;
    }
}
