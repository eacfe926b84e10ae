package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.Granter;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;

/**
 * One mutating invocation: the request, who asks, its canonical digest, and the ids it mints once
 * (so every pass of the same invocation plans the same operation). Single-threaded.
 */
final class Invocation {
    final HostRequest.Mutating request;
    final Granter granter;
    final Instant deadline;
    final String digest;
    final String mintedOperation = Rows.newId();
    final String mintedUid = Rows.newId();
    /** What this invocation wrote, over all its passes: step tag to the revision written. */
    final java.util.Map<Plan.Tag, Long> wrote = new java.util.EnumMap<>(Plan.Tag.class);
    /** Set once the owner's write budget admitted this invocation's new request id (SPEC §13.20). */
    boolean charged;
    /** Set before the binding's create is sent: from then on a binding may exist. */
    boolean attemptedBind;

    Invocation(HostRequest.Mutating request, Granter granter, Instant deadline) {
        this.request = request;
        this.granter = granter;
        this.deadline = deadline;
        this.digest = sha256(HostJson.writeRequest(request));
    }

    /** Who a binding belongs to: {@code owner:<u_…>} (any of its actors) or {@code operator}. */
    String granterId() {
        return granter instanceof Granter.Owner o ? "owner:" + o.owner() : "operator";
    }

    /** The operator's audit id, stored on every record an operator operation writes; null for an owner. */
    String auditId() {
        return granter instanceof Granter.Operator o ? o.auditId() : null;
    }

    /** The owner of an owner granter; null for the operator. */
    String owner() {
        return granter instanceof Granter.Owner o ? o.owner() : null;
    }

    static String sha256(byte[] bytes) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new CotalException(ErrorCode.INTERNAL, "SHA-256 is unavailable", e);
        }
    }

    static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }
}
