package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostRequest;
import java.util.Set;

/**
 * Seams where a test can act at exact points of an invocation (a concurrent write, a kicked
 * connection, a failing read). Production uses {@link #NONE}.
 */
interface Hooks {
    Hooks NONE = new Hooks() {
    };

    /** After the first discovery pass planned {@code scope}, before the effect connection opens. */
    default void afterDiscovery(HostRequest request, Set<String> scope) {
    }

    /** Before each write step, with the effect connection that will carry it. */
    default void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
    }

    /** Before an effect connection is closed; throwing makes that close fail (the engine keeps it). */
    default void beforeEffectClose(EffectConnection effect) {
    }

    /** Before a revoke's gate read for deny-new evidence; throwing makes that read fail. */
    default void beforeGateRead(String endpoint, String instanceId) {
    }
}
