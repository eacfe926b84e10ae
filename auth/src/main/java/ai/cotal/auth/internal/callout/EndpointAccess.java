package ai.cotal.auth.internal.callout;

import ai.cotal.auth.EndpointInstance;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The service-endpoint access a connect is admitted with (SPEC §13.16): the instance a serving
 * connection serves, or the caller grants a plain connect holds. The authority reads it from the
 * host's records at every connect; the callout turns it into subjects. Immutable.
 */
public record EndpointAccess(Optional<EndpointInstance> serving, List<Grant> grants) {
    /** No endpoint access: the connect gets no endpoint subject. */
    public static final EndpointAccess NONE = new EndpointAccess(Optional.empty(), List.of());

    public EndpointAccess {
        Objects.requireNonNull(serving, "serving");
        grants = List.copyOf(grants);
        if (serving.isPresent() && !grants.isEmpty()) {
            throw new IllegalArgumentException("a serving connect holds no caller grant");
        }
    }

    /** An active caller grant: the request subjects of {@code capabilities} on {@code instance}. */
    public record Grant(String grantId, EndpointInstance instance, List<String> capabilities) {
        public Grant {
            Objects.requireNonNull(grantId, "grantId");
            Objects.requireNonNull(instance, "instance");
            capabilities = List.copyOf(capabilities);
        }
    }

    /** Access for a serving connection of {@code instance}. */
    public static EndpointAccess serving(EndpointInstance instance) {
        return new EndpointAccess(Optional.of(instance), List.of());
    }

    /** Access for a caller holding {@code grants}. */
    public static EndpointAccess callerGrants(List<Grant> grants) {
        return new EndpointAccess(Optional.empty(), grants);
    }

    /** The endpoint key of an instance's serving connections: {@code serves:<endpoint>.<instanceId>}. */
    public static String servingKey(EndpointInstance instance) {
        return "serves:" + instance.endpoint() + "." + instance.instanceId();
    }

    /** The endpoint key of the callers a grant admitted: {@code grant:<grantId>}. */
    public static String grantKey(String grantId) {
        return "grant:" + grantId;
    }

    /**
     * What the connect holds, as endpoint keys (SPEC §13.16): its serving key, or one grant key per
     * grant, in order; none for no access. A revoke of one of them closes the connection. The
     * callout names the admitted user after them, which is how the broker tells them to a later
     * plane.
     */
    public List<String> keys() {
        return serving.map(i -> List.of(servingKey(i))).orElseGet(() -> grants.stream().map(g -> grantKey(g.grantId()))
                .toList());
    }

    /** True when the connect gets no endpoint subject (nothing to record for a later revoke). */
    public boolean isEmpty() {
        return serving.isEmpty() && grants.isEmpty();
    }
}
