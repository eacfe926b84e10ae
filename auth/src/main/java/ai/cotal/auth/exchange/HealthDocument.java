package ai.cotal.auth.exchange;

import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.PlaneHealth;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The body of {@code GET /health} (SPEC §13.17, §13.21): the public face's {@code {ok, issuer}},
 * and on the loopback face the closed document that says why: the plane's state, each of its
 * connections, the callout's subscription and the authority stores' fill. Holds no secret.
 * Stateless.
 */
final class HealthDocument {
    private HealthDocument() {
    }

    /** {@code {ok: true, issuer}}: the public face's answer, unchanged. */
    static Map<String, Object> publicFace(String space) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("issuer", BearerClaims.issuerOf(space));
        return body;
    }

    /**
     * The loopback face's document; {@code proof} (may be null) answers the challenge. {@code ok}
     * is true iff the plane is open and the callout, when reported, answers.
     */
    static Map<String, Object> loopback(String space, PlaneHealth plane, String proof) {
        boolean answering = plane.callout().map(PlaneHealth.Callout::answering).orElse(true);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", plane.state() == PlaneHealth.State.OPEN && answering);
        body.put("issuer", BearerClaims.issuerOf(space));
        if (proof != null) {
            body.put("proof", proof);
        }
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("state", plane.state().label());
        plane.fenceReason().ifPresent(reason -> state.put("reason", reason));
        body.put("plane", state);
        List<Map<String, Object>> connections = new ArrayList<>();
        for (PlaneConnection connection : plane.connections()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("role", connection.role().label());
            row.put("name", connection.name());
            row.put("status", lower(connection.status()));
            connection.serverId().ifPresent(id -> row.put("serverId", id));
            connection.cid().ifPresent(cid -> row.put("cid", cid));
            connections.add(row);
        }
        body.put("connections", connections);
        plane.callout().ifPresent(responder -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("answering", responder.answering());
            row.put("status", responder.status());
            body.put("callout", row);
        });
        List<Map<String, Object>> stores = new ArrayList<>();
        for (PlaneHealth.StoreFill fill : plane.stores()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("store", fill.store());
            row.put("stream", fill.stream());
            row.put("bytes", fill.bytes());
            row.put("maxBytes", fill.maxBytes());
            row.put("percent", fill.maxBytes() > 0 ? (int) Math.min(100, fill.bytes() * 100 / fill.maxBytes()) : 0);
            row.put("refusing", fill.refusing());
            fill.readAt().ifPresent(at -> row.put("readAt", at.toString()));
            stores.add(row);
        }
        body.put("stores", stores);
        return body;
    }

    /** A status enum's lower-case name; jnats' {@code CONNECTING} reads as {@code reconnecting}, as in §13.12. */
    private static String lower(Enum<?> status) {
        String name = status.name().toLowerCase(Locale.ROOT);
        return name.equals("connecting") ? "reconnecting" : name;
    }
}
