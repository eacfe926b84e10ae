package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * The identity an auth plane instance keeps across restarts: an instance id (32 lowercase hex)
 * and the serve identity (a user nkey). Kept in the {@link SecretStore} at
 * {@code space.<hex>/auth-instance.json} as {@code {version: 1, instanceId, serveIdentity: {id,
 * seed}}}. A malformed record is refused, never silently replaced. {@code toString()} shows the
 * ids only.
 */
public record AuthInstanceIdentity(String instanceId, Identity serveIdentity) {
    private static final SecureRandom RANDOM = new SecureRandom();

    public AuthInstanceIdentity {
        if (instanceId == null || !instanceId.matches("[0-9a-f]{32}")) {
            throw CotalException.badRequest("instanceId", "must be 32 lowercase hex");
        }
        Objects.requireNonNull(serveIdentity, "serveIdentity");
    }

    private record Serve(String id, String seed) {
        @Override
        public String toString() {
            return "Serve[" + id + "]";
        }
    }

    private record Document(Integer version, String instanceId, Serve serveIdentity) {
    }

    /** The stored identity of {@code space}'s auth instance, created and stored when absent. */
    public static AuthInstanceIdentity loadOrCreate(SecretStore store, String space) {
        String key = SecretKeys.authInstanceKey(space);
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isPresent()) {
            try {
                Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, key);
                if (doc.version() == null || doc.version() != 1 || doc.serveIdentity() == null) {
                    throw CotalException.badRequest(key, "needs version 1 and serveIdentity");
                }
                Identity identity = Identity.fromSeed(doc.serveIdentity().seed());
                if (!identity.id().equals(doc.serveIdentity().id())) {
                    throw CotalException.badRequest(key, "serveIdentity.id does not match its seed");
                }
                return new AuthInstanceIdentity(doc.instanceId(), identity);
            } catch (CotalException e) {
                throw new CotalException(ErrorCode.DATA_LOSS, key + " is malformed (" + e.getMessage()
                        + "); it is never replaced silently: repair or remove it deliberately", e);
            }
        }
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        AuthInstanceIdentity created = new AuthInstanceIdentity(HexFormat.of().formatHex(id), Identity.create());
        store.put(key, ClosedJson.write(ClosedJson.cotal(), new Document(1, created.instanceId(),
                new Serve(created.serveIdentity().id(), created.serveIdentity().key().seed()))));
        return created;
    }
}
