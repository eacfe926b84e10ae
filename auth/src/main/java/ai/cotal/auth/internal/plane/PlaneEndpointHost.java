package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.Granter;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.auth.internal.endpoint.ServiceEndpointEngine;
import ai.cotal.core.CotalException;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import java.time.Instant;

/**
 * The plane's {@link ServiceEndpointHost}: a closing plane refuses new calls; a fenced plane's
 * engine answers on its own (writes held, reads unavailable); a completed revoke closes the live
 * connections it revoked.
 */
final class PlaneEndpointHost implements ServiceEndpointHost {
    private final ServiceEndpointEngine engine;
    private final Runnable refuseIfClosing;
    private final RevokedConnections live;
    private final AuthMetrics metrics;

    PlaneEndpointHost(ServiceEndpointEngine engine, Runnable refuseIfClosing, RevokedConnections live,
            AuthMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
        this.refuseIfClosing = refuseIfClosing;
        this.live = live;
    }

    @Override
    public HostResult serve(Granter granter, HostRequest request, Instant deadline) {
        if (request instanceof HostRequest.Register register) {
            return counted(request, HostResult.of(HostResult.Status.UNSUPPORTED, null,
                    "register is reachable only through the service authority route").withRequestId(register.requestId()));
        }
        return invoke(granter, request, deadline);
    }

    @Override
    public HostResult admit(Granter granter, HostRequest.Register request, Instant deadline) {
        return invoke(granter, request, deadline);
    }

    /** Counts the call by its request kind and result status ({@code cotal.auth.endpoint.invocations}, SPEC §13.21). */
    private HostResult counted(HostRequest request, HostResult result) {
        metrics.invocation(request.kind(), result.status().wire());
        return result;
    }

    private HostResult invoke(Granter granter, HostRequest request, Instant deadline) {
        if (granter == null || request == null || deadline == null) {
            throw CotalException.badRequest(granter == null ? "granter" : request == null ? "request" : "deadline",
                    "is required");
        }
        try {
            refuseIfClosing.run();
            return counted(request, closeLive(request, engine.invoke(granter, request, deadline)));
        } catch (CotalException e) {
            metrics.invocation(request.kind(), e.code().wire());
            throw e;
        }
    }

    /**
     * A revoke or caller-revoke that completed (applied or stored) closes the live connections
     * holding its instance or grant through the broker, and says so (SPEC §13.16).
     */
    private HostResult closeLive(HostRequest request, HostResult result) {
        if (result.status() != HostResult.Status.COMPLETED) {
            return result;
        }
        if (request instanceof HostRequest.Revoke r) {
            return result.withLiveConnections(live.close(EndpointAccess.servingKey(new EndpointInstance(r.endpoint(),
                    r.instanceId()))));
        }
        if (request instanceof HostRequest.CallerRevoke r) {
            return result.withLiveConnections(live.close(EndpointAccess.grantKey(r.grantId())));
        }
        return result;
    }
}
