package ai.cotal.auth;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a plane stands, as {@link AuthAuthorityPlane#health()} reads it (SPEC §13.21): its state,
 * why it fenced, its own connections ({@link AuthAuthorityPlane#connections()}) and the fill of the
 * authority stores its budgeted writes go to, as the store-pressure signal last read them
 * (SPEC §13.20), and its callout responder when it answers the auth callout
 * ({@link AuthPlaneOptions.Builder#callout}). Holds no secret. Immutable.
 *
 * @param state       the plane's state now
 * @param fenceReason the operator message of the fence, when {@link State#FENCED}
 * @param connections the plane's connections, in boot order
 * @param stores      one reading per watched store: {@code auth}, {@code issued}, {@code accepted}
 * @param callout     the callout responder's standing; empty when the plane answers no callout
 * @param ledger      where the actor ledger and the IdP pin live (SPEC §13.23): {@code files} or {@code store}
 */
public record PlaneHealth(State state, Optional<String> fenceReason, List<PlaneConnection> connections,
        List<StoreFill> stores, Optional<Callout> callout, String ledger) {
    /** Copies the lists. */
    public PlaneHealth {
        connections = List.copyOf(connections);
        stores = List.copyOf(stores);
    }

    /**
     * The plane's callout responder.
     *
     * @param answering true while it is in the space's queue group (false once the plane fenced or closed)
     * @param status    its connection's status, lower case ({@code connected}, {@code reconnecting}, ...)
     */
    public record Callout(boolean answering, String status) {
    }

    /** A plane's state. */
    public enum State {
        /** Serving. */
        OPEN,
        /** The fatal latch fired: every operation refuses {@code unavailable} until it is opened again. */
        FENCED,
        /** {@code close()} began and has not finished. */
        CLOSING,
        /** {@code close()} finished. */
        CLOSED;

        /** The lower-case name {@code /health} shows. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One authority store's fill.
     *
     * @param store    the store kind: {@code auth}, {@code issued} or {@code accepted}
     * @param stream   its stream ({@code KV_cotal_<kind>_<token>})
     * @param bytes    bytes used
     * @param maxBytes its bound ({@code max_bytes}; 0 when unbounded or never read)
     * @param refusing whether budgeted writes into it are refused now (at or above 80% of a positive bound)
     * @param readAt   when the reading was taken; empty until a read answered
     */
    public record StoreFill(String store, String stream, long bytes, long maxBytes, boolean refusing,
            Optional<Instant> readAt) {
        /** bytes / maxBytes, 0 when unbounded. */
        public double fill() {
            return maxBytes > 0 ? (double) bytes / maxBytes : 0;
        }
    }
}
