package ai.cotal.auth.internal.manager;

import ai.cotal.auth.ServingGate;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The closed JSON documents of SPEC §14.2 and §14.3: serving gates, service specs (auth and
 * manager), manager statuses, cluster manifests and cluster roots. Each is {@code v: 1}, written in
 * one canonical form (no whitespace, fields in declaration order), and parsed closed: a document
 * that breaks a rule is refused with the key it was read from. Stateless.
 */
public final class ServingDocuments {
    public static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    public static final Pattern SERVE_IDENTITY = ai.cotal.workspace.AuthInstanceIdentity.SERVE_IDENTITY;
    private static final Pattern URN = Pattern.compile("[a-z0-9.-]{1,128}");
    private static final Pattern COMMAND = Pattern.compile("[a-z][a-z0-9-]{0,63}");
    private static final long MAX_SAFE = (1L << 53) - 1;

    /** {@code gate.<endpoint>.<iid>}. */
    record GateDocument(Integer v, String endpoint, String instanceId, String state, String principal, Long processEpoch,
            Long registrationRevision, String updatedAt) {
    }

    /** {@code svc.auth.<iid>.spec}. */
    record AuthSpec(Integer v, String endpoint, String instanceId, String serveIdentity) {
    }

    /** {@code svc.manager.<iid>.spec}. */
    public record ManagerSpec(Integer v, String endpoint, String instanceId, String owner, String actor,
            List<String> clusterDigests) {
    }

    /** {@code svc.manager.<iid>.status}. */
    public record ManagerStatus(Integer v, String instanceId, Long observedSpecRevision, Long epoch) {
    }

    /** {@code svc.manager.<iid>.session.<sid>} (SPEC §14.5). */
    public record Session(Integer v, String sessionId, String instanceId, String owner, String caller,
            List<String> commands, String state, Long expiresAt) {
    }

    /** A cluster manifest artifact. */
    public record Manifest(Integer v, String kind, String root, List<String> artifacts) {
    }

    /** A cluster root artifact. */
    public record Root(Integer v, String kind, String urn, List<String> commands) {
    }

    private ServingDocuments() {
    }

    /** {@code sha256:} + the lowercase hex SHA-256 of {@code bytes}. */
    public static String digest(byte[] bytes) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    public static byte[] write(Object document) {
        return ClosedJson.write(ClosedJson.cotal(), document);
    }

    static byte[] write(ServingGate gate) {
        return write(new GateDocument(1, gate.endpoint(), gate.instanceId(), gate.state().wire(), gate.principal(),
                gate.processEpoch(), gate.registrationRevision(), gate.updatedAt()));
    }

    static ServingGate parseGate(String endpoint, String instanceId, byte[] data, long revision) {
        String key = "gate." + endpoint + "." + instanceId;
        GateDocument d = read(data, GateDocument.class, key);
        if (d.v() == null || d.v() != 1 || !endpoint.equals(d.endpoint()) || !instanceId.equals(d.instanceId())) {
            throw corrupt(key, "version, endpoint or instance");
        }
        ServingGate.State state = switch (String.valueOf(d.state())) {
            case "open" -> ServingGate.State.OPEN;
            case "frozen" -> ServingGate.State.FROZEN;
            default -> throw corrupt(key, "state");
        };
        if (!principal(d.principal()) || !counter(d.processEpoch()) || !counter(d.registrationRevision())
                || !ClosedJson.isInstant(d.updatedAt())) {
            throw corrupt(key, "principal, processEpoch, registrationRevision or updatedAt");
        }
        return new ServingGate(endpoint, instanceId, state, d.principal(), d.processEpoch(), d.registrationRevision(),
                d.updatedAt(), revision);
    }

    static AuthSpec parseAuthSpec(String instanceId, byte[] data) {
        String key = "svc.auth." + instanceId + ".spec";
        AuthSpec d = read(data, AuthSpec.class, key);
        if (d.v() == null || d.v() != 1 || !"auth".equals(d.endpoint()) || !instanceId.equals(d.instanceId())
                || d.serveIdentity() == null || !SERVE_IDENTITY.matcher(d.serveIdentity()).matches()) {
            throw corrupt(key, "version, endpoint, instance or serveIdentity");
        }
        return d;
    }

    /** The manager spec stored at {@code svc.manager.<iid>.spec}; {@code data-loss} when it breaks a rule. */
    public static ManagerSpec parseManagerSpec(String instanceId, byte[] data) {
        String key = "svc.manager." + instanceId + ".spec";
        ManagerSpec d = read(data, ManagerSpec.class, key);
        if (d.v() == null || d.v() != 1 || !"manager".equals(d.endpoint()) || !instanceId.equals(d.instanceId())
                || !Owner.matches(d.owner()) || d.actor() == null
                || !Actor.matches(d.actor()) || !digests(d.clusterDigests(), 1, 16)) {
            throw corrupt(key, "version, endpoint, instance, owner, actor or clusterDigests");
        }
        return d;
    }

    /** The manager status stored at {@code svc.manager.<iid>.status}; {@code data-loss} when it breaks a rule. */
    public static ManagerStatus parseManagerStatus(String instanceId, byte[] data) {
        String key = "svc.manager." + instanceId + ".status";
        ManagerStatus d = read(data, ManagerStatus.class, key);
        if (d.v() == null || d.v() != 1 || !instanceId.equals(d.instanceId()) || !counter(d.observedSpecRevision())
                || !counter(d.epoch())) {
            throw corrupt(key, "version, instance, observedSpecRevision or epoch");
        }
        return d;
    }

    /** The session stored at {@code svc.manager.<iid>.session.<sid>}; {@code data-loss} when it breaks a rule. */
    public static Session parseSession(String instanceId, String sessionId, byte[] data) {
        String key = "svc.manager." + instanceId + ".session." + sessionId;
        Session d = read(data, Session.class, key);
        if (d.v() == null || d.v() != 1 || !sessionId.equals(d.sessionId()) || !instanceId.equals(d.instanceId())
                || !Owner.matches(d.owner()) || !caller(d.caller()) || !names(d.commands())
                || !("active".equals(d.state()) || "revoked".equals(d.state())) || !counter(d.expiresAt())) {
            throw corrupt(key, "version, sessionId, instance, owner, caller, commands, state or expiresAt");
        }
        return d;
    }

    /** A session's caller: a {@link Principal} {@code <owner>.<actor>}. */
    public static boolean caller(String principal) {
        return Principal.matches(principal);
    }

    /** Checks a session's commands, refusing {@code bad-request} naming {@code commands}. */
    public static void requireCommands(List<String> commands) {
        if (!names(commands)) {
            throw CotalException.badRequest("commands", "1 to 64 distinct [a-z][a-z0-9-]{0,63}");
        }
    }

    /** A verified artifact as a manifest; {@code null} when it is not one. */
    static Manifest manifest(byte[] data) {
        try {
            Manifest d = ClosedJson.read(ClosedJson.cotal(), data, Manifest.class, "manifest");
            boolean ok = d.v() != null && d.v() == 1 && "cluster-manifest".equals(d.kind()) && d.root() != null
                    && DIGEST.matcher(d.root()).matches() && digests(d.artifacts(), 0, 64);
            return ok ? d : null;
        } catch (CotalException e) {
            return null;
        }
    }

    /** A verified artifact as a cluster root; {@code null} when it is not one. */
    static Root root(byte[] data) {
        try {
            Root d = ClosedJson.read(ClosedJson.cotal(), data, Root.class, "root");
            boolean ok = d.v() != null && d.v() == 1 && "cluster-root".equals(d.kind()) && d.urn() != null
                    && URN.matcher(d.urn()).matches() && names(d.commands());
            return ok ? d : null;
        } catch (CotalException e) {
            return null;
        }
    }

    /** Checks a document the writer builds, refusing {@code bad-request} naming {@code field}. */
    public static void requireDigests(List<String> digests, int min, int max, String field) {
        if (!digests(digests, min, max)) {
            throw CotalException.badRequest(field, min + " to " + max + " distinct sha256:<64 lowercase hex> digests");
        }
    }

    public static void requireRoot(String urn, List<String> commands) {
        if (urn == null || !URN.matcher(urn).matches()) {
            throw CotalException.badRequest("urn", "must be 1 to 128 of [a-z0-9.-]");
        }
        if (!names(commands)) {
            throw CotalException.badRequest("commands", "1 to 64 distinct [a-z][a-z0-9-]{0,63}");
        }
    }

    public static boolean counter(Long value) {
        return value != null && value >= 1 && value <= MAX_SAFE;
    }

    static boolean principal(String principal) {
        int dot = principal == null ? -1 : principal.indexOf('.');
        return dot > 0 && Actor.matches(principal.substring(0, dot))
                && Actor.matches(principal.substring(dot + 1));
    }

    private static boolean digests(List<String> digests, int min, int max) {
        return digests != null && digests.size() >= min && digests.size() <= max
                && digests.stream().allMatch(d -> d != null && DIGEST.matcher(d).matches())
                && new HashSet<>(digests).size() == digests.size();
    }

    private static boolean names(List<String> commands) {
        return commands != null && !commands.isEmpty() && commands.size() <= 64
                && commands.stream().allMatch(c -> c != null && COMMAND.matcher(c).matches())
                && new HashSet<>(commands).size() == commands.size();
    }

    private static <T> T read(byte[] data, Class<T> type, String key) {
        try {
            return ClosedJson.read(ClosedJson.cotal(), data, type, key);
        } catch (CotalException e) {
            throw corrupt(key, e.getMessage());
        }
    }

    static CotalException corrupt(String key, String why) {
        return new CotalException(ErrorCode.DATA_LOSS, "the serving record " + key + " is corrupt (" + why + ")");
    }

    static String utf8(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }
}
