package ai.cotal.auth.service;

import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.endpoint.ServiceEndpointAdmissionKey;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code admitsServiceEndpoints}: whether a space's service-endpoint admission is open (a plane
 * once opened with service endpoints; nothing closes it). Callout replicas make this same read and
 * refuse such a space.
 */
public final class ServiceEndpointAdmission {
    private ServiceEndpointAdmission() {
    }

    /**
     * Reads the space's admission marker over a short-lived read-only connection signed with the
     * space's service keys.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} when the service keys are
     *         missing or the admission store cannot be read; {@code unavailable} when the broker
     *         cannot be reached
     */
    public static boolean admitsServiceEndpoints(String space, List<String> servers, SecretStore secrets) {
        return admitsServiceEndpoints(space, servers, ServiceMaterial.loadSigner(secrets, space));
    }

    /** As {@link #admitsServiceEndpoints(String, List, SecretStore)}, signing with {@code signer} (a remote signer's). */
    static boolean admitsServiceEndpoints(String space, List<String> servers, SpaceSigner signer) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cotal-admission-check");
            thread.setDaemon(true);
            return thread;
        });
        try (AuthorityConnection reader = AuthorityConnection.open(servers, signer, AuthorityRole.DISCOVERY,
                Duration.ofMinutes(5), Clock.systemUTC(), scheduler, null, why -> { })) {
            return ServiceEndpointAdmissionKey.isOpen(reader.connection(), space);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
