package ai.cotal.signer;

import ai.cotal.core.CotalException;

/**
 * The profiles a remote signer recognizes (SPEC §16.2): one per kind of user JWT the plane signs
 * with the data account's key. A claim is recognized by its permissions, never by its name or
 * tags; the policy lists which of these a signer may issue and for how long. Catalogue order is
 * the order in which covering profiles are tried: a narrower profile before one that grants more
 * (the reader before the barrier), so the audit log names the tightest fit.
 */
public enum SignerProfile {
    /** The callout's plain view: chat and granted service-endpoint capabilities. */
    CALLOUT_MEMBER("callout-member"),
    /** The callout's {@code endpoint-server} view: one instance's request subjects, replies only. */
    CALLOUT_ENDPOINT_SERVER("callout-endpoint-server"),
    /** The callout's {@code manager-caller} view, managed or issued. */
    CALLOUT_MANAGER_CALLER("callout-manager-caller"),
    /** The callout's {@code session-caller} view. */
    CALLOUT_SESSION_CALLER("callout-session-caller"),
    /** The plane's reader connection. */
    AUTH_READER("auth-reader"),
    /** The plane's service-endpoint discovery connection. */
    EP_DISCOVERY("ep-discovery"),
    /** The plane's barrier connection. */
    AUTH_BARRIER("auth-barrier"),
    /** The plane's writer connection. */
    AUTH_MINT("auth-mint"),
    /** An issuer window of one served run attempt. */
    AUTH_ISSUER_WINDOW("auth-issuer-window"),
    /** The plane's issuer connection. */
    AUTH_ISSUER("auth-issuer"),
    /** The plane's admin listener connection. */
    AUTH_ADMIN("auth-admin"),
    /** The ledger scanner (no expiry). */
    AUTH_SCAN("auth-scan"),
    /** The records scanner (no expiry). */
    RECORDS_SCAN("records-scan"),
    /** A service-endpoint invocation's effect connection. */
    EP_EFFECT("ep-effect"),
    /** A manager instance's registrar credential. */
    MANAGER_REGISTRAR("manager-registrar"),
    /** A manager instance's standing service credential. */
    MANAGER_SERVICE("manager-service"),
    /** The driver of one run attempt. */
    RUN_DRIVER("run-driver");

    private final String label;

    SignerProfile(String label) {
        this.label = label;
    }

    /** The profile's name in a policy file and in the audit log. */
    public String label() {
        return label;
    }

    /** The profile named {@code label}; an unknown name is {@code bad-request} naming {@code field}. */
    public static SignerProfile ofLabel(String label, String field) {
        for (SignerProfile profile : values()) {
            if (profile.label.equals(label)) {
                return profile;
            }
        }
        throw CotalException.badRequest(field, "not a profile of the remote signer's catalogue");
    }
}
