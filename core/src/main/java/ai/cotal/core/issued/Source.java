package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.SpaceName;

/** A KV row whose existence keeps an issuance alive (for example an actor's ledger row). */
public record Source(String space, String bucket, String key) {
    public Source {
        SpaceName.of(space, "sources.space");
        if (bucket == null || !bucket.matches("[A-Za-z0-9_-]{1,64}")) {
            throw CotalException.badRequest("sources.bucket", "not a bucket name");
        }
        if (key == null || !key.matches("[-/_=.A-Za-z0-9]{1,256}") || key.startsWith(".") || key.endsWith(".")) {
            throw CotalException.badRequest("sources.key", "not a KV key");
        }
    }
}
