package ai.cotal.auth.service;

import ai.cotal.auth.GrantPolicy;
import ai.cotal.core.CotalException;
import com.fasterxml.jackson.databind.JsonNode;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.id.SpaceName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The multi-space host's manifest (SPEC §13.19): {@code {ver: 1, spaces: [{space,
 * serviceEndpoints?, oidc?: {issuer, clientId, algorithms?}, signerSocket?, grantPolicy?}]}}, closed JSON, at
 * most 256 spaces and 64 KiB. Each entry's
 * {@code serviceEndpoints} (default false) is the only place that setting lives for a lane.
 * {@link #parse} is the exact parser the host applies: check a manifest with it before renaming it
 * into place.
 */
public record AuthHostManifest(int ver, List<Entry> spaces) {
    static final int MAX_BYTES = 64 * 1024;
    static final int MAX_SPACES = 256;
    /** The longest Unix socket path (the kernel's {@code sun_path} less its terminating NUL). */
    static final int MAX_SOCKET_PATH = 107;

    /**
     * One lane.
     *
     * @param space the space
     * @param serviceEndpoints whether the lane hosts service endpoints
     * @param oidc the OpenID Connect provider the lane pins at start, or null for none (SPEC §13.14)
     * @param signerSocket the Unix socket of the space's remote signer ({@code cotal-auth signer},
     *        SPEC §16), or null: the lane signs with the seed in the host's secret store
     * @param grantPolicy the lane's grant policy (SPEC §13.18), or null for none
     */
    public record Entry(String space, boolean serviceEndpoints, AuthServiceOptions.Oidc oidc, Path signerSocket,
            GrantPolicy grantPolicy) {
        /** A lane without an OpenID Connect provider. */
        public Entry(String space, boolean serviceEndpoints) {
            this(space, serviceEndpoints, null, null, null);
        }

        /** A lane whose seed is in the host's secret store. */
        public Entry(String space, boolean serviceEndpoints, AuthServiceOptions.Oidc oidc) {
            this(space, serviceEndpoints, oidc, null, null);
        }

        /** A lane without a grant policy. */
        public Entry(String space, boolean serviceEndpoints, AuthServiceOptions.Oidc oidc, Path signerSocket) {
            this(space, serviceEndpoints, oidc, signerSocket, null);
        }
    }

    /** A manifest as it is on disk now: the exact bytes a host applies and what they parse to. */
    record OnDisk(byte[] bytes, AuthHostManifest manifest) {
    }

    /**
     * Reads and parses {@code file} for {@code host} (its name in the refusal): a file that cannot
     * be read is {@code failed-precondition} naming the kind of failure, not the path.
     */
    static OnDisk read(Path file, String host) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "cannot read the " + host + " manifest ("
                    + e.getClass().getSimpleName() + ")");
        }
        return new OnDisk(bytes, parse(new String(bytes, StandardCharsets.UTF_8)));
    }

    /** Where a host writes the copy it applied: {@code <manifest>.applied}. */
    static Path appliedFile(Path manifest) {
        return manifest.resolveSibling(manifest.getFileName() + ".applied");
    }

    private record Document(Integer ver, List<EntryDocument> spaces) {
    }

    private record EntryDocument(String space, Boolean serviceEndpoints, OidcDocument oidc, String signerSocket,
            JsonNode grantPolicy) {
    }

    private record OidcDocument(String issuer, String clientId, List<String> algorithms) {
    }

    /** An absolute, normal path a Unix socket can have (at most 107 bytes), or null when absent. */
    private static Path signerSocket(String text, String field) {
        if (text == null) {
            return null;
        }
        Path path;
        try {
            path = text.isBlank() || text.indexOf('\0') >= 0 ? null : Path.of(text);
        } catch (java.nio.file.InvalidPathException e) {
            path = null;
        }
        if (path == null) {
            throw CotalException.badRequest(field, SOCKET_RULE);
        }
        return checkSignerSocket(path, field);
    }

    private static final String SOCKET_RULE = "must be an absolute, normal path of at most " + MAX_SOCKET_PATH
            + " bytes (a Unix socket)";

    /** {@code socket} when it is absolute, normal and at most 107 bytes long, else {@code bad-request} naming {@code field}. */
    static Path checkSignerSocket(Path socket, String field) {
        if (!socket.isAbsolute() || !socket.normalize().equals(socket)
                || socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
            throw CotalException.badRequest(field, SOCKET_RULE);
        }
        return socket;
    }

    /** {@code parseAuthHostManifest}: refuses anything out of shape as {@code bad-request} naming the field. */
    public static AuthHostManifest parse(String text) {
        if (text == null) {
            throw CotalException.badRequest("manifest", "is required");
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BYTES) {
            throw CotalException.badRequest("manifest", "is over 64 KiB");
        }
        Document doc = ClosedJson.read(ClosedJson.cotal(), bytes, Document.class, "manifest");
        if (doc == null || doc.ver() == null || doc.ver() != 1) {
            throw CotalException.badRequest("ver", "must be 1");
        }
        if (doc.spaces() == null || doc.spaces().isEmpty()) {
            throw CotalException.badRequest("spaces", "list at least one space");
        }
        if (doc.spaces().size() > MAX_SPACES) {
            throw CotalException.badRequest("spaces", "at most " + MAX_SPACES + " spaces");
        }
        Set<String> seen = new HashSet<>();
        List<Entry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < doc.spaces().size(); i++) {
            EntryDocument e = doc.spaces().get(i);
            String field = "spaces[" + i + "]";
            if (e == null) {
                throw CotalException.badRequest(field, "must be an object");
            }
            SpaceName.of(e.space(), field + ".space");
            if (!seen.add(e.space())) {
                throw CotalException.badRequest(field + ".space", "lists '" + e.space() + "' twice");
            }
            AuthServiceOptions.Oidc oidc = null;
            if (e.oidc() != null) {
                List<String> algorithms = e.oidc().algorithms() == null ? List.of() : e.oidc().algorithms();
                try {
                    ai.cotal.auth.IdpPin.checkOidc(e.oidc().issuer(), e.oidc().clientId(), algorithms);
                } catch (CotalException refused) {
                    throw CotalException.badRequest(field + ".oidc", refused.getMessage());
                }
                oidc = new AuthServiceOptions.Oidc(e.oidc().issuer(), e.oidc().clientId(), algorithms);
            }
            entries.add(new Entry(e.space(), Boolean.TRUE.equals(e.serviceEndpoints()), oidc,
                    signerSocket(e.signerSocket(), field + ".signerSocket"), e.grantPolicy() == null ? null
                    : GrantPolicy.from(e.grantPolicy(), field + ".grantPolicy")));
        }
        return new AuthHostManifest(1, List.copyOf(entries));
    }
}
