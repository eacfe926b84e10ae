package ai.cotal.auth.service;

import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A multi-space host (SPEC §13.19): one {@link AuthService} lane per manifest entry, each with its
 * own plane, callout and faces under {@code <stateRoot>/space.<hex of the name>}. {@link #apply()} re-reads the
 * manifest: a malformed one is refused and the running lanes stay as they are; otherwise only the
 * lanes whose entry changed are reopened (closed, then started), removed lanes close and new ones
 * start; then {@code <manifest>.applied} is written (the exact bytes applied, 0600). Thread-safe.
 */
public final class AuthHost implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthHost.class);

    /** What the host runs from. */
    public record Options(List<String> servers, Path manifest, Path stateRoot, SecretStore secretStore, Clock clock) {
        public Options {
            if (servers == null || servers.isEmpty()) {
                throw CotalException.badRequest("servers", "at least one broker URL");
            }
            Objects.requireNonNull(manifest, "manifest");
            Objects.requireNonNull(stateRoot, "stateRoot");
            Objects.requireNonNull(secretStore, "secretStore");
            Objects.requireNonNull(clock, "clock");
            servers = List.copyOf(servers);
        }
    }

    private final Options options;
    private final Map<String, Lane> lanes = new LinkedHashMap<>();

    private record Lane(AuthHostManifest.Entry entry, AuthService service) {
    }

    private AuthHost(Options options) {
        this.options = options;
    }

    /** {@code parseAuthHostManifest}: the parser {@link #apply()} uses. */
    public static AuthHostManifest parseAuthHostManifest(String text) {
        return AuthHostManifest.parse(text);
    }

    /** Starts every lane of the manifest; any failure closes the lanes already started. */
    public static AuthHost start(Options options) {
        AuthHost host = new AuthHost(options);
        try {
            host.apply();
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
        return host;
    }

    /** The running lanes, by space. */
    public synchronized Map<String, AuthService> lanes() {
        Map<String, AuthService> view = new LinkedHashMap<>();
        lanes.forEach((space, lane) -> view.put(space, lane.service()));
        return view;
    }

    /** The path of the applied copy: {@code <manifest>.applied}. */
    public Path appliedFile() {
        return options.manifest().resolveSibling(options.manifest().getFileName() + ".applied");
    }

    /**
     * Applies the manifest as it is on disk now. A malformed manifest throws {@code bad-request}
     * and changes nothing. A lane that fails to start throws after the others were applied; the
     * applied file is then not rewritten.
     */
    public synchronized void apply() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(options.manifest());
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "cannot read the host manifest "
                    + options.manifest(), e);
        }
        AuthHostManifest manifest = AuthHostManifest.parse(new String(bytes, StandardCharsets.UTF_8));
        Map<String, AuthHostManifest.Entry> wanted = new LinkedHashMap<>();
        manifest.spaces().forEach(e -> wanted.put(e.space(), e));
        RuntimeException failure = null;
        for (String space : List.copyOf(lanes.keySet())) {
            AuthHostManifest.Entry entry = wanted.get(space);
            if (entry == null || !entry.equals(lanes.get(space).entry())) {
                LOG.info("auth-host: closing lane {}", space);
                try {
                    lanes.get(space).service().close();
                    lanes.remove(space); // only once closed: a lane that could not close stays owned and retried
                } catch (RuntimeException e) {
                    LOG.error("auth-host: lane {} did not close: {}", space, e.getMessage());
                    failure = failure == null ? e : failure;
                }
            }
        }
        for (AuthHostManifest.Entry entry : wanted.values()) {
            if (lanes.containsKey(entry.space())) {
                continue; // unchanged, or still closing after a failed close
            }
            try {
                lanes.put(entry.space(), new Lane(entry, startLane(entry)));
                LOG.info("auth-host: lane {} started (service endpoints {})", entry.space(), entry.serviceEndpoints());
            } catch (RuntimeException e) {
                LOG.error("auth-host: lane {} did not start: {}", entry.space(), e.getMessage());
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
        PrivateFiles.write(appliedFile(), bytes);
    }

    private AuthService startLane(AuthHostManifest.Entry entry) {
        // the encoded segment, never the raw name: a space name may hold "/", "." or ".."
        Path stateDir = options.stateRoot().resolve(ai.cotal.workspace.SecretKeys.spaceSegment(entry.space()));
        PrivateFiles.ensureDirectory(options.stateRoot(), stateDir);
        return AuthService.start(AuthServiceOptions.builder().servers(options.servers()).space(entry.space())
                .stateDir(stateDir).secretStore(options.secretStore()).clock(options.clock())
                .serviceEndpoints(entry.serviceEndpoints() ? ServiceEndpoints.normal() : null).build());
    }

    /** Closes every lane (the errors of all are kept: the first is thrown with the rest suppressed). */
    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (String space : List.copyOf(lanes.keySet())) {
            try {
                lanes.get(space).service().close();
                lanes.remove(space);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure; // the lanes that did not close stay owned: close() may be called again
        }
    }
}
