package ai.cotal.auth.internal.plane;

import ai.cotal.servicehost.HostResult;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Closes the live connections holding a revoked endpoint key (SPEC §13.16): marks the register
 * (so a connect checked before the revoke is refused), takes what the register recorded, sweeps
 * the broker for what an earlier plane admitted, and kicks each connection once. Thread-safe.
 */
final class RevokedConnections {
    private final LiveConnectionRegister register;
    private final ConnectionSweep sweep;
    private final ConnectionEvictor evictor;

    RevokedConnections(LiveConnectionRegister register, ConnectionSweep sweep, ConnectionEvictor evictor) {
        this.register = register;
        this.sweep = sweep;
        this.evictor = evictor;
    }

    /** Closes every live connection holding {@code key}; the evidence a completed revoke carries. */
    HostResult.LiveConnections close(String key) {
        Set<ConnectionEvictor.Target> targets = new LinkedHashSet<>(register.revoke(key));
        ConnectionSweep.Found found = sweep.find(key);
        targets.addAll(found.connections());
        return evictor.kick(targets, found.complete());
    }
}
