package ai.cotal.auth.internal.manager;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.AuthInstanceIdentity;
import ai.cotal.workspace.PrivateFiles;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The plane's restart identity (SPEC §14.2). With an {@code identityRoot}: {@code {v: 1, space,
 * instanceId, serveIdentity}} at {@code <identityRoot>/auth-instance/space.<hex>.json}, created
 * once (0600, create-only, in a 0700 directory) and never rewritten. Without one: the secret
 * store's {@link AuthInstanceIdentity} ({@link #fromStore}), which adopts a state directory's file
 * left by an earlier open. It holds no secret: both ids are public. A record that breaks a rule
 * fails the open {@code data-loss}; it is never replaced.
 */
public record RestartIdentity(String instanceId, String serveIdentity) {

    private record Document(Integer v, String space, String instanceId, String serveIdentity) {
    }

    /** The gate principal of the plane: {@code auth.<serveIdentity>}. */
    public String principal() {
        return "auth." + serveIdentity;
    }

    /** The identity file of {@code space} under {@code root}. */
    public static Path file(Path root, String space) {
        return root.resolve("auth-instance").resolve(SecretKeys.spaceSegment(space) + ".json");
    }

    /**
     * The identity in {@code store} ({@code space.<hex>/auth-instance.json}), created when absent:
     * from {@code <stateDir>/auth-instance/space.<hex>.json} when an earlier open left one there (so
     * a plane that ran with the default root keeps its instance), else random. Create-only: two
     * racing opens both end with the first one's.
     */
    public static RestartIdentity fromStore(SecretStore store, String space, Path stateDir) {
        AuthInstanceIdentity identity = AuthInstanceIdentity.loadOrCreate(store, space, () -> {
            Optional<byte[]> earlier = PrivateFiles.readNoFollow(file(stateDir, space));
            if (earlier.isEmpty()) {
                return AuthInstanceIdentity.random();
            }
            RestartIdentity adopted = parse(space, earlier.get());
            return new AuthInstanceIdentity(adopted.instanceId(), adopted.serveIdentity());
        });
        return new RestartIdentity(identity.instanceId(), identity.serveIdentity());
    }

    /** Loads the identity, creating it first when absent; two racing creators both end with the first one's. */
    public static RestartIdentity loadOrCreate(Path root, String space) {
        Path file = file(root, space);
        Optional<byte[]> bytes = PrivateFiles.readNoFollow(file);
        if (bytes.isEmpty()) {
            PrivateFiles.ensureDirectory(root, file.getParent());
            AuthInstanceIdentity fresh = AuthInstanceIdentity.random();
            Document created = new Document(1, space, fresh.instanceId(), fresh.serveIdentity());
            if (PrivateFiles.create(file, ClosedJson.write(ClosedJson.cotal(), created))) {
                return new RestartIdentity(created.instanceId(), created.serveIdentity());
            }
            bytes = PrivateFiles.readNoFollow(file); // another open created it first: use its identity
        }
        return parse(space, bytes.orElseThrow(() -> new CotalException(ErrorCode.DATA_LOSS,
                "the plane's restart identity vanished right after it was created")));
    }

    private static RestartIdentity parse(String space, byte[] bytes) {
        String what = "the plane's restart identity (auth-instance/" + SecretKeys.spaceSegment(space) + ".json)";
        Document d;
        try {
            d = ClosedJson.read(ClosedJson.cotal(), bytes, Document.class, "restartIdentity");
        } catch (CotalException e) {
            throw corrupt(what, e.getMessage());
        }
        if (d.v() == null || d.v() != 1 || !space.equals(d.space()) || d.instanceId() == null
                || !AuthInstanceIdentity.INSTANCE_ID.matcher(d.instanceId()).matches() || d.serveIdentity() == null
                || !AuthInstanceIdentity.SERVE_IDENTITY.matcher(d.serveIdentity()).matches()) {
            throw corrupt(what, "version, space, instanceId or serveIdentity");
        }
        return new RestartIdentity(d.instanceId(), d.serveIdentity());
    }

    private static CotalException corrupt(String what, String why) {
        return new CotalException(ErrorCode.DATA_LOSS, what + " is corrupt (" + why
                + "); it is never replaced: repair or remove it deliberately");
    }
}
