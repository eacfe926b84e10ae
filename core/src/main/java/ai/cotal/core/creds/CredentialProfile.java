package ai.cotal.core.creds;

import ai.cotal.core.jwt.Permission;

/**
 * The credential profiles this SDK mints. Each is an explicit allow-list (default deny), with a
 * lifetime from the matrix in SPEC.md §3.5 and the account it lives in. Permissions are listed
 * by {@link ProfilePermissions}.
 */
public enum CredentialProfile {
    /** Creates and verifies the space's streams and stores; writes the default delivery class. */
    PROVISIONER("provisioner", Lifetime.of(300, Lifetime.Renewal.ONE_SHOT), false),
    /** Writes issued-authority evidence and accepted rows. */
    ISSUER("issuer", Lifetime.of(300, Lifetime.Renewal.ONE_SHOT), false),
    /** The delivery daemon: chat consumers, delivery inboxes and control requests. */
    DELIVERY("delivery", Lifetime.of(86_400, Lifetime.Renewal.RENEWABLE), false),
    /** Reads chat. */
    OBSERVER("observer", Lifetime.none(), false),
    /** Reads chat, instance and service traffic. */
    ADMIN("admin", Lifetime.none(), false),
    /** One agent incarnation: its own subjects and durables; needs owner, actor and lifecycle uid. */
    AGENT("agent", Lifetime.none(), false),
    /** Reads, snapshots and deletes exactly the issued and accepted streams (IssuedStores.recreate). */
    ISSUED_STORE_RECREATE("issued-store-recreate", Lifetime.of(1_800, Lifetime.Renewal.ONE_SHOT), false),
    /** Restores exactly the issued and accepted streams from a backup (IssuedStores.restore). */
    ISSUED_STORE_RESTORE("issued-store-restore", Lifetime.of(1_800, Lifetime.Renewal.ONE_SHOT), false),
    /** Connects and proves it can; publishes nothing. */
    PROBE("probe", Lifetime.of(60, Lifetime.Renewal.ONE_SHOT), false),
    /** The only profile that deletes the space's streams. */
    TEARDOWN("teardown", Lifetime.none(), false),
    /** System account: reads CONNZ of one data account and its connect/disconnect events. */
    MEMBERSHIP_OBSERVER("membership-observer", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true),
    /** System account: kicks connections, nothing else. */
    CONNECTION_EVICTOR("connection-evictor", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true),
    /** System account: pushes, looks up and lists account claims, nothing else. */
    ACCOUNT_CLAIMS("account-claims", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true);

    private final String label;
    private final Lifetime lifetime;
    private final boolean systemAccount;

    CredentialProfile(String label, Lifetime lifetime, boolean systemAccount) {
        this.label = label;
        this.lifetime = lifetime;
        this.systemAccount = systemAccount;
    }

    /** The profile's name: the user JWT's {@code name}. */
    public String label() {
        return label;
    }

    public Lifetime lifetime() {
        return lifetime;
    }

    /** True for the profiles minted in the system account. */
    public boolean systemAccount() {
        return systemAccount;
    }

    /** The profile with this label; unknown labels are refused (never a fallback). */
    public static CredentialProfile ofLabel(String label) {
        for (CredentialProfile profile : values()) {
            if (profile.label.equals(label)) {
                return profile;
            }
        }
        throw ai.cotal.core.CotalException.badRequest("profile", "unknown credential profile");
    }

    /** Publish and subscribe permissions of one credential. */
    public record Grants(Permission pub, Permission sub) {
    }
}
