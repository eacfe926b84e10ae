package ai.cotal.auth;

import ai.cotal.core.CotalException;

/**
 * The {@code serviceEndpoints} setting of a plane or a hosted service:
 * {@code {startup: {kind: "normal"}}} hosts the service-endpoint operations. A {@code restore}
 * startup, or a setting without a startup, is accepted here but refused when the plane opens
 * (after it took the claim, which the unwind releases): this SDK hosts service endpoints only
 * from a normal start.
 *
 * @param startup how the host starts; null is "missing"
 */
public record ServiceEndpoints(Startup startup) {
    /** How the host starts. */
    public record Startup(String kind) {
        public Startup {
            if (!"normal".equals(kind) && !"restore".equals(kind)) {
                throw CotalException.badRequest("serviceEndpoints.startup.kind", "must be normal or restore");
            }
        }
    }

    /** {@code {startup: {kind: "normal"}}}. */
    public static ServiceEndpoints normal() {
        return new ServiceEndpoints(new Startup("normal"));
    }

    /** Why the plane must refuse to open with this setting, or null when it may. */
    String refusal() {
        if (startup == null) {
            return "serviceEndpoints has no startup: give {startup: {kind: \"normal\"}}";
        }
        if (startup.kind().equals("restore")) {
            return "serviceEndpoints startup \"restore\" is not supported: restore the stores first"
                    + " (IssuedStores.restore), then open with {startup: {kind: \"normal\"}}";
        }
        return null;
    }
}
