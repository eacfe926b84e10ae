package ai.cotal.core.creds;

import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;

/**
 * The credential profiles this SDK mints: the whole matrix of SPEC.md §3.5. Each is an explicit
 * allow-list (default deny), with a lifetime from the frozen lifetime table, the account it lives
 * in and the pin it needs. Permissions are listed by {@link ProfilePermissions}.
 */
public enum CredentialProfile {
    /** Creates and verifies the space's streams and stores; writes the default delivery class. */
    PROVISIONER("provisioner", oneShot(300), false, Pin.NONE),
    /** Writes issued-authority evidence and accepted rows. */
    ISSUER("issuer", oneShot(300), false, Pin.NONE),
    /** The delivery daemon: chat consumers, delivery inboxes and control requests. */
    DELIVERY("delivery", renewable(), false, Pin.NONE),
    /** Reads chat. */
    OBSERVER("observer", Lifetime.none(), false, Pin.NONE),
    /** Reads chat, instance and service traffic. */
    ADMIN("admin", Lifetime.none(), false, Pin.NONE),
    /** One agent incarnation: its own subjects and durables; needs owner, actor and lifecycle uid. */
    AGENT("agent", Lifetime.none(), false, Pin.LIFECYCLE_UID),
    /** Reads, snapshots and deletes exactly the issued and accepted streams (IssuedStores.recreate). */
    ISSUED_STORE_RECREATE("issued-store-recreate", oneShot(1_800), false, Pin.NONE),
    /** Restores exactly the issued and accepted streams from a backup (IssuedStores.restore). */
    ISSUED_STORE_RESTORE("issued-store-restore", oneShot(1_800), false, Pin.NONE),
    /** Connects and proves it can; publishes nothing. */
    PROBE("probe", Lifetime.of(60, Lifetime.Renewal.ONE_SHOT), false, Pin.NONE),
    /** The only profile that deletes the space's streams. */
    TEARDOWN("teardown", Lifetime.none(), false, Pin.NONE),
    /** A manager's supervisor: manager leases, its own presence, delivery-admin requests. */
    SUPERVISOR("supervisor", renewable(), false, Pin.NONE),
    /** Reads members and membership; writes the membership bucket. */
    MEMBERSHIP_RW("membership-rw", renewable(), false, Pin.NONE),
    /** Purges the chat and DM streams. */
    PURGER("purger", oneShot(300), false, Pin.NONE),
    /** Writes the channel registry (and may create its bucket). */
    CHANNEL_WRITER("channel-writer", oneShot(300), false, Pin.NONE),
    /** Writes the channel registry and purges chat. */
    CHANNEL_PURGER("channel-purger", Lifetime.none(), false, Pin.NONE),
    /** Deletes exactly one incarnation's DM and delivery durables and its ACL key. */
    DEPROVISIONER("deprovisioner", oneShot(300), false, Pin.LIFECYCLE_UID),
    /** Requests the retirement of one incarnation. */
    RETIREMENT_REQUESTER("retirement-requester", oneShot(300), false, Pin.LIFECYCLE_UID),
    /** Creates exactly one incarnation's DM and delivery durables and writes its ACL key. */
    LIFECYCLE_EXECUTOR("lifecycle-executor", oneShot(300), false, Pin.LIFECYCLE_UID),
    /** Creates the work-queue durable of one endpoint instance. */
    ENDPOINT_SERVE_EXECUTOR("endpoint-serve-executor", oneShot(300), false, Pin.INSTANCE),
    /** Reads the configuration and state of every stream of the space, never its data. */
    OPERATOR("operator", oneShot(300), false, Pin.NONE),
    /** Snapshots every stream of the space. */
    BACKUP("backup", oneShot(300), false, Pin.NONE),
    /** Restores every stream of the space from snapshots. */
    RESTORE("restore", oneShot(300), false, Pin.NONE),
    /** Sends delivery control requests on behalf of any agent. */
    CONTROL_CALLER_PRIVILEGED("control-caller-privileged", oneShot(300), false, Pin.NONE),
    /** Sends delivery-admin control requests. */
    CONTROL_CALLER_ADMIN("control-caller-admin", oneShot(300), false, Pin.NONE),
    /** Drives one run: publishes its jobs, reads its results. */
    RUN_DRIVER("run-driver", renewable(), false, Pin.RUN),
    /** Mediates one run: reads its jobs, publishes its results and events. */
    RUN_MEDIATOR("run-mediator", renewable(), false, Pin.RUN),
    /** Sends one control request to one run. */
    RUN_OPERATOR("run-operator", oneShot(60), false, Pin.RUN),
    /** Writes one run's admission row. */
    RUN_ADMITTER("run-admitter", oneShot(60), false, Pin.RUN),
    /** Deletes the work-queue durable of one endpoint instance. */
    ENDPOINT_EVICTOR("endpoint-evictor", oneShot(60), false, Pin.INSTANCE),
    /** A manager running elsewhere: its own lease, serves its owner's manager commands. */
    REMOTE_MANAGER("remote-manager", renewable(), false, Pin.INSTANCE),
    /** Publishes its principal's goal facts. */
    GOAL_WRITER("goal-writer", renewable(), false, Pin.NONE),
    /** Appends its owner's session journal. */
    SESSION_LEDGER("session-ledger", renewable(), false, Pin.NONE),
    /** Calls one session. */
    SESSION_CALLER("session-caller", Lifetime.of(86_400, Lifetime.Renewal.NONE), false, Pin.SESSION),
    /** Serves one session. */
    SESSION_SERVING("session-serving", Lifetime.of(86_400, Lifetime.Renewal.NONE), false, Pin.SESSION),
    /** Publishes contract artifacts and contracts. */
    DEPLOYER("deployer", Lifetime.none(), false, Pin.NONE),
    /** Serves one endpoint instance: minted only by the plane behind its gate (never by Creds.mint). */
    ENDPOINT_SERVE("endpoint-serve", renewable(), false, Pin.ENDPOINT_INSTANCE),
    /** System account: reads CONNZ of one data account and its connect/disconnect events. */
    MEMBERSHIP_OBSERVER("membership-observer", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true, Pin.NONE),
    /** System account: kicks connections, nothing else. */
    CONNECTION_EVICTOR("connection-evictor", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true, Pin.NONE),
    /** System account: pushes, looks up and lists account claims and learns the cluster's members (JSZ), nothing else. */
    ACCOUNT_CLAIMS("account-claims", Lifetime.of(2_592_000, Lifetime.Renewal.ROTATION), true, Pin.NONE);

    /** What a profile's credential is pinned to (SPEC §3.5); a pinned profile refuses a missing pin. */
    public enum Pin {
        /** Not pinned. */
        NONE,
        /** {@code MintOptions.lifecycleUid}: one incarnation. */
        LIFECYCLE_UID,
        /** {@code MintOptions.pin}: a run id. */
        RUN,
        /** {@code MintOptions.pin}: an endpoint or manager instance id. */
        INSTANCE,
        /** {@code MintOptions.pin}: a session id. */
        SESSION,
        /** An endpoint and an instance id, given only to the plane's gated entry. */
        ENDPOINT_INSTANCE
    }

    private final String label;
    private final Lifetime lifetime;
    private final boolean systemAccount;
    private final Pin pin;

    CredentialProfile(String label, Lifetime lifetime, boolean systemAccount, Pin pin) {
        this.label = label;
        this.lifetime = lifetime;
        this.systemAccount = systemAccount;
        this.pin = pin;
    }

    private static Lifetime oneShot(long seconds) {
        return Lifetime.of(seconds, Lifetime.Renewal.ONE_SHOT);
    }

    private static Lifetime renewable() {
        return Lifetime.of(86_400, Lifetime.Renewal.RENEWABLE);
    }

    /** The profile's name: the user JWT's {@code name}. */
    public String label() {
        return label;
    }

    /** The default lifetime and how a credential of this profile is replaced. */
    public Lifetime lifetime() {
        return lifetime;
    }

    /** True for the profiles minted in the system account. */
    public boolean systemAccount() {
        return systemAccount;
    }

    /** What the profile's credential is pinned to. */
    public Pin pin() {
        return pin;
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

    /** Publish and subscribe permissions of one credential, and its response permission (serving profiles). */
    public record Grants(Permission pub, Permission sub, ResponsePermission resp) {
        /** Grants without a response permission. */
        public Grants(Permission pub, Permission sub) {
            this(pub, sub, null);
        }
    }
}
