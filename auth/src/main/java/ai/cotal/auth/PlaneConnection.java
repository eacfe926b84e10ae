package ai.cotal.auth;

import ai.cotal.core.CotalException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One of an authority plane's own connections as it stood when {@link AuthAuthorityPlane#connections()}
 * was asked (SPEC §13.12): its role, its connection name ({@code cotal:<label>:<space>}), its
 * status and, while it is connected, the broker's server id and the client id (cid) that server
 * gave it. It carries no secret: no JWT, no key. Immutable and thread-safe; a snapshot, never
 * updated.
 *
 * @param role     what the connection does for the plane
 * @param name     the connection name the broker shows ({@code cotal:<label>:<space>})
 * @param status   where the connection stands
 * @param serverId the server it is connected to; empty unless {@link Status#CONNECTED}
 * @param cid      the client id that server gave it; empty unless {@link Status#CONNECTED}
 */
public record PlaneConnection(Role role, String name, Status status, Optional<String> serverId, OptionalLong cid) {
    public PlaneConnection {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(serverId, "serverId");
        Objects.requireNonNull(cid, "cid");
        if (name == null || !name.startsWith("cotal:" + role.label() + ":")) {
            throw CotalException.badRequest("name", "must be cotal:" + role.label() + ":<space>");
        }
        if (status != Status.CONNECTED && (serverId.isPresent() || cid.isPresent())) {
            throw CotalException.badRequest("serverId", "is known only while connected");
        }
    }

    /** The roles of the plane's connections; the grants of each are in SPEC §13.12. */
    public enum Role {
        /** Creates and verifies the stores, writes credential rows and gates ({@code auth-mint}). */
        WRITER("auth-mint"),
        /** The only writer of the {@code plane} key ({@code auth-barrier}). */
        BARRIER("auth-barrier"),
        /** Reads the auth and records stores ({@code auth-reader}). */
        READER("auth-reader"),
        /** The ledger scanner, a plane candidate: its loss fences the plane ({@code auth-scan}). */
        LEDGER_SCANNER("auth-scan"),
        /** The records scanner, a plane candidate: its loss fences the plane ({@code records-scan}). */
        RECORDS_SCANNER("records-scan"),
        /** Read-only discovery for service endpoints, open only when they are on ({@code ep-discovery}). */
        DISCOVERY("ep-discovery"),
        /** Writes issued-authority rows and reads issuance sources ({@code auth-issuer}). */
        ISSUER("auth-issuer"),
        /**
         * The admin listener: takes a manager's retire requests and publishes nothing but their
         * replies ({@code auth-admin}; SPEC §14.1).
         */
        ADMIN("auth-admin"),
        /**
         * An issuer window: a short-lived issuer connection opened for one served run attempt and
         * closed with it ({@code auth-issuer-window}; SPEC §14.7); never listed as standing.
         */
        ISSUER_WINDOW("auth-issuer-window");

        private final String label;

        Role(String label) {
            this.label = label;
        }

        /** The label in the connection name {@code cotal:<label>:<space>}. */
        public String label() {
            return label;
        }
    }

    /** Where a connection stands. */
    public enum Status {
        /** Connected to a server. */
        CONNECTED,
        /** Lost its server and trying again (standing connections reconnect forever). */
        RECONNECTING,
        /** Lost its server and not trying again yet. */
        DISCONNECTED,
        /** Closed: by the plane's close, a failed renewal, or (a scanner) its loss. */
        CLOSED
    }
}
