package ai.cotal.auth.internal.plane;

import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.internal.endpoint.ServiceEndpointEngine;
import ai.cotal.core.CotalException;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import java.time.Instant;

/**
 * The plane's {@link ServiceEndpointHost}: a closing plane refuses new calls; a fenced plane's
 * engine answers on its own (writes held, reads unavailable).
 */
final class PlaneEndpointHost implements ServiceEndpointHost {
    private final ServiceEndpointEngine engine;
    private final Runnable refuseIfClosing;

    PlaneEndpointHost(ServiceEndpointEngine engine, Runnable refuseIfClosing) {
        this.engine = engine;
        this.refuseIfClosing = refuseIfClosing;
    }

    @Override
    public HostResult serve(Granter granter, HostRequest request, Instant deadline) {
        if (request instanceof HostRequest.Register register) {
            return HostResult.of(HostResult.Status.UNSUPPORTED, null,
                    "register is reachable only through the service authority route").withRequestId(register.requestId());
        }
        return invoke(granter, request, deadline);
    }

    @Override
    public HostResult admit(Granter granter, HostRequest.Register request, Instant deadline) {
        return invoke(granter, request, deadline);
    }

    private HostResult invoke(Granter granter, HostRequest request, Instant deadline) {
        if (granter == null || request == null || deadline == null) {
            throw CotalException.badRequest(granter == null ? "granter" : request == null ? "request" : "deadline",
                    "is required");
        }
        refuseIfClosing.run();
        return engine.invoke(granter, request, deadline);
    }
}
