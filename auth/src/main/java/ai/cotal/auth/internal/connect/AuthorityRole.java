package ai.cotal.auth.internal.connect;

import ai.cotal.auth.PlaneConnection;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;

/**
 * The roles of the plane's self-minted connections (SPEC §13.12): their connection names, their
 * reconnect rules, and their exact grants, read from core's {@link AuthorityGrants} (the table the
 * remote signer's catalogue admits claims by).
 */
public enum AuthorityRole {
    /** Creates, verifies and bounds the stores, writes credential rows, reads the stores' pressure. */
    WRITER(PlaneConnection.Role.WRITER),
    /** The only role that writes the {@code plane} key and the lifecycle records. */
    BARRIER(PlaneConnection.Role.BARRIER),
    /** Leader reads of the auth and records stores. */
    READER(PlaneConnection.Role.READER),
    /** The ledger scanner: one literal consumer on the auth store. A plane candidate. */
    LEDGER_SCANNER(PlaneConnection.Role.LEDGER_SCANNER),
    /** The records scanner: one literal consumer on the records store. A plane candidate. */
    RECORDS_SCANNER(PlaneConnection.Role.RECORDS_SCANNER),
    /** Read-only discovery for service-endpoint invocations. */
    DISCOVERY(PlaneConnection.Role.DISCOVERY),
    /**
     * Writes issued-authority evidence and accepted rows for issued callers; reads the other
     * authority stores' rows for core's source check.
     */
    ISSUER(PlaneConnection.Role.ISSUER),
    /** The admin listener (SPEC §14.1): subscribes the retire subjects, publishes only replies. */
    ADMIN(PlaneConnection.Role.ADMIN),
    /**
     * An issuer window (SPEC §14.7): the issuer's store grants on a connection opened for one
     * served run attempt and closed with it; it never reconnects and subscribes only its inbox.
     */
    ISSUER_WINDOW(PlaneConnection.Role.ISSUER_WINDOW);

    private final PlaneConnection.Role view;
    private final AuthorityGrants grants;

    AuthorityRole(PlaneConnection.Role view) {
        this.view = view;
        this.grants = AuthorityGrants.valueOf(name()); // the one grant table the remote signer's catalogue also reads
    }

    /** The connection name: {@code cotal:<label>:<space>}. */
    public String connectionName(String space) {
        return "cotal:" + view.label() + ":" + space;
    }

    /** This role as {@link ai.cotal.auth.AuthAuthorityPlane#connections()} shows it; it holds the label. */
    public PlaneConnection.Role view() {
        return view;
    }

    /** True for the two scanners: no expiry, never reconnect; their death fences the plane. */
    public boolean planeCandidate() {
        return this == LEDGER_SCANNER || this == RECORDS_SCANNER;
    }

    /** True for the connections that reconnect forever: every role but the scanners and the issuer window. */
    public boolean reconnects() {
        return !planeCandidate() && this != ISSUER_WINDOW;
    }

    /** The subject a manager instance sends its retire requests on (SPEC §14.1). */
    public static String retireManagedSubject(String space, String instanceId) {
        return AuthorityGrants.retireManagedSubject(space, instanceId);
    }

    /** Subscribe grants of this role: {@link AuthorityGrants#subscribe}. */
    public Permission subscribe(String space, String userNkey) {
        return grants.subscribe(space, userNkey);
    }

    /** The reply allowance: {@link AuthorityGrants#response}. */
    public ResponsePermission response() {
        return grants.response();
    }

    /** Publish grants of this role in {@code space}: {@link AuthorityGrants#publish}. */
    public Permission publish(String space) {
        return grants.publish(space);
    }
}
