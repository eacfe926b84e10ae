package ai.cotal.auth;

import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import java.time.Duration;
import java.time.Instant;

/**
 * The in-process service-endpoint host of a plane (SPEC §13.1), for granters the caller has
 * already authenticated. Handed out by {@link AuthAuthorityPlane#serviceEndpoints()} only when
 * the plane was opened with service endpoints ({@link AuthPlaneOptions.Builder#serviceEndpoints}).
 *
 * <p>Thread-safe. Once the plane began closing, or once it is fenced, every call (a write or a
 * read) refuses with {@code unavailable} and binds nothing; a handle taken before either stays
 * refusing. An invocation already past its entry when the plane fences answers {@code held}
 * ({@code tripped}). The stock service hands out the same host through
 * {@code AuthService.serviceEndpoints()}, which also refuses unless the service is ready.
 */
public interface ServiceEndpointHost {
    /** How long an in-process host call may take when the caller names no deadline. */
    Duration DEFAULT_HOST_DEADLINE = Duration.ofSeconds(10);

    /**
     * Answers a host request ({@code serviceEndpointHost}) within {@link #DEFAULT_HOST_DEADLINE}.
     * {@code register} answers {@code unsupported} here: admission goes through {@link #admit}.
     */
    default HostResult serve(Granter granter, HostRequest request) {
        return serve(granter, request, Instant.now().plus(DEFAULT_HOST_DEADLINE));
    }

    /**
     * Answers a host request by {@code deadline}: the invocation's effect connection expires at
     * that deadline rounded up to the whole second and is never renewed.
     */
    HostResult serve(Granter granter, HostRequest request, Instant deadline);

    /**
     * Register admission ({@code serviceEndpointAuthority}, the service authority route): a
     * registering daemon's request, for the owner its proof names, by {@code deadline}.
     */
    HostResult admit(Granter granter, HostRequest.Register request, Instant deadline);

    /** Register admission within {@link #DEFAULT_HOST_DEADLINE}. */
    default HostResult admit(Granter granter, HostRequest.Register request) {
        return admit(granter, request, Instant.now().plus(DEFAULT_HOST_DEADLINE));
    }
}
