package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.id.SpaceName;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The identity an auth plane instance keeps across restarts (SPEC §7.4, §14.2): an instance id
 * (32 lowercase hex) and a serve identity (26 of {@code [a-z2-7]}), both random at creation and
 * both public. Kept in the {@link SecretStore} at {@code space.<hex>/auth-instance.json} as closed
 * JSON {@code {version: 1, space, instanceId, serveIdentity}}, created once (create-only: of two
 * racing creators both end with the first one's) and never rewritten; a malformed record is
 * {@code data-loss}, never silently replaced. The authority plane reads it when its embedder names
 * no {@code identityRoot}. Immutable.
 */
public record AuthInstanceIdentity(String instanceId, String serveIdentity) {
    /** The grammar of an instance id. */
    public static final Pattern INSTANCE_ID = Pattern.compile("[0-9a-f]{32}");
    /** The grammar of a serve identity (the gate principal is {@code auth.<serveIdentity>}). */
    public static final Pattern SERVE_IDENTITY = Pattern.compile("[a-z2-7]{26}");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

    /** Checks both grammars ({@code bad-request} naming the field). */
    public AuthInstanceIdentity {
        if (instanceId == null || !INSTANCE_ID.matcher(instanceId).matches()) {
            throw CotalException.badRequest("instanceId", "must be 32 lowercase hex");
        }
        if (serveIdentity == null || !SERVE_IDENTITY.matcher(serveIdentity).matches()) {
            throw CotalException.badRequest("serveIdentity", "must be 26 of [a-z2-7]");
        }
    }

    private record Document(Integer version, String space, String instanceId, String serveIdentity) {
    }

    /** A fresh identity: both ids random. */
    public static AuthInstanceIdentity random() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        StringBuilder serve = new StringBuilder();
        for (int i = 0; i < 26; i++) {
            serve.append(BASE32.charAt(RANDOM.nextInt(32)));
        }
        return new AuthInstanceIdentity(HexFormat.of().formatHex(id), serve.toString());
    }

    /** The stored identity of {@code space}'s auth instance, created (random) and stored when absent. */
    public static AuthInstanceIdentity loadOrCreate(SecretStore store, String space) {
        return loadOrCreate(store, space, AuthInstanceIdentity::random);
    }

    /**
     * The stored identity of {@code space}'s auth instance; when absent, {@code initial} is stored
     * create-only (a concurrent creator's record wins and is returned). The store must implement
     * {@link SecretStore#create}.
     *
     * @throws CotalException {@code data-loss} when the stored record is malformed or names another space
     */
    public static AuthInstanceIdentity loadOrCreate(SecretStore store, String space, Supplier<AuthInstanceIdentity> initial) {
        Objects.requireNonNull(initial, "initial");
        Optional<AuthInstanceIdentity> stored = load(store, space);
        if (stored.isPresent()) {
            return stored.get();
        }
        AuthInstanceIdentity created = Objects.requireNonNull(initial.get(), "initial identity");
        if (store.create(SecretKeys.authInstanceKey(space), ClosedJson.write(ClosedJson.cotal(),
                new Document(1, space, created.instanceId(), created.serveIdentity())))) {
            return created;
        }
        return load(store, space).orElseThrow(() -> new CotalException(ErrorCode.DATA_LOSS,
                SecretKeys.authInstanceKey(space) + " vanished right after another creator wrote it"));
    }

    /** The stored identity of {@code space}'s auth instance, if any; {@code data-loss} when malformed. */
    public static Optional<AuthInstanceIdentity> load(SecretStore store, String space) {
        SpaceName.of(space, "space");
        String key = SecretKeys.authInstanceKey(space);
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, key);
            if (doc.version() == null || doc.version() != 1 || !space.equals(doc.space())) {
                throw CotalException.badRequest(key, "needs version 1 and space " + space);
            }
            return Optional.of(new AuthInstanceIdentity(doc.instanceId(), doc.serveIdentity()));
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, key + " is malformed (" + e.getMessage()
                    + "); it is never replaced silently: repair or remove it deliberately", e);
        }
    }
}
