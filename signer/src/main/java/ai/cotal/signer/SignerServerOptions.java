package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link SignerServer#start} needs: the space's signer (its seed held in this process), the
 * socket path, the policy (default {@link SignerPolicy#stock}), the audit log path and its
 * rotation (default at 64 MiB, 8 older files kept), an optional socket group, and a clock. Validated at build. Immutable; {@code toString()} shows public keys
 * and paths only.
 */
public final class SignerServerOptions {
    /** The longest socket path the kernel binds (sun_path is 108 bytes with its terminator). */
    static final int MAX_SOCKET_PATH = 107;
    /** The default size at which the audit log is rotated: 64 MiB. */
    public static final long DEFAULT_AUDIT_MAX_BYTES = 64L << 20;
    /** The default number of rotated audit files kept. */
    public static final int DEFAULT_AUDIT_KEEP = 8;

    private final SpaceSigner signer;
    private final Path socket;
    private final SignerPolicy policy;
    private final Path audit;
    private final long auditMaxBytes;
    private final int auditKeep;
    private final Optional<String> socketGroup;
    private final Clock clock;

    private SignerServerOptions(Builder b) {
        this.signer = b.signer;
        this.socket = b.socket;
        this.policy = b.policy == null ? SignerPolicy.stock(b.signer.space(), b.signer.accountPublicKey()) : b.policy;
        this.audit = b.audit;
        this.auditMaxBytes = b.auditMaxBytes;
        this.auditKeep = b.auditKeep;
        this.socketGroup = Optional.ofNullable(b.socketGroup);
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The space's signer: the key this process signs with. */
    public SpaceSigner signer() {
        return signer;
    }

    public Path socket() {
        return socket;
    }

    public SignerPolicy policy() {
        return policy;
    }

    public Path audit() {
        return audit;
    }

    /** The size at which the audit log is rotated. */
    public long auditMaxBytes() {
        return auditMaxBytes;
    }

    /** How many rotated audit files are kept ({@code audit.jsonl.1} newest). */
    public int auditKeep() {
        return auditKeep;
    }

    /** The group that may reach the socket (directory 0710, socket 0660), when not only this user. */
    public Optional<String> socketGroup() {
        return socketGroup;
    }

    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "SignerServerOptions[" + signer.space() + ", " + signer.signing().publicKey() + ", socket=" + socket
                + ", audit=" + audit + ", " + policy + ", socketGroup=" + socketGroup + "]";
    }

    /** Builder; {@link #build()} validates, naming the first bad option. */
    public static final class Builder {
        private SpaceSigner signer;
        private Path socket;
        private SignerPolicy policy;
        private Path audit;
        private long auditMaxBytes = DEFAULT_AUDIT_MAX_BYTES;
        private int auditKeep = DEFAULT_AUDIT_KEEP;
        private String socketGroup;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** The space's signer; its key stays in this process (normally an {@link InMemoryAccountSigner}). */
        public Builder signer(SpaceSigner signer) {
            this.signer = signer;
            return this;
        }

        /** Where to listen: a Unix domain socket path of at most 107 bytes. */
        public Builder socket(Path socket) {
            this.socket = socket;
            return this;
        }

        public Builder policy(SignerPolicy policy) {
            this.policy = policy;
            return this;
        }

        /** The audit log file (SPEC §16.3); its directory must exist and be private. */
        public Builder audit(Path audit) {
            this.audit = audit;
            return this;
        }

        /**
         * Rotates the audit log once it holds {@code maxBytes} (4 KiB to 1 TiB), keeping {@code keep}
         * older files (1 to 1,000): the log holds at most about {@code (keep + 1) * maxBytes}.
         */
        public Builder auditRotation(long maxBytes, int keep) {
            this.auditMaxBytes = maxBytes;
            this.auditKeep = keep;
            return this;
        }

        /** A group of this user's that may reach the socket (SPEC §16.1); default none. */
        public Builder socketGroup(String group) {
            this.socketGroup = group;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public SignerServerOptions build() {
            if (signer == null) {
                throw CotalException.badRequest("signer", "the space's signer is required");
            }
            if (socket == null) {
                throw CotalException.badRequest("socket", "required");
            }
            socket = socket.toAbsolutePath().normalize();
            if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
                throw CotalException.badRequest("socket", "a Unix socket path holds at most " + MAX_SOCKET_PATH + " bytes");
            }
            if (audit == null) {
                throw CotalException.badRequest("audit", "required");
            }
            audit = audit.toAbsolutePath().normalize();
            if (auditMaxBytes < 4096 || auditMaxBytes > (1L << 40)) {
                throw CotalException.badRequest("auditMaxBytes", "must be 4096 to " + (1L << 40));
            }
            if (auditKeep < 1 || auditKeep > 1000) {
                throw CotalException.badRequest("auditKeep", "must be 1 to 1000");
            }
            if (policy != null && !policy.space().equals(signer.space())) {
                throw CotalException.badRequest("policy", "is for space \"" + policy.space() + "\", not \"" + signer.space()
                        + "\"");
            }
            if (policy != null && !policy.account().equals(signer.accountPublicKey())) {
                throw CotalException.badRequest("policy", "serves account " + policy.account() + ", but the signer's key"
                        + " belongs to " + signer.accountPublicKey());
            }
            if (socketGroup != null && !socketGroup.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}")) {
                throw CotalException.badRequest("socketGroup", "not a group name");
            }
            Objects.requireNonNull(clock, "clock");
            return new SignerServerOptions(this);
        }
    }
}
