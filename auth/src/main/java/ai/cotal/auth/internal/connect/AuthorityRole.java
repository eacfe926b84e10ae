package ai.cotal.auth.internal.connect;

import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.internal.endpoint.ServiceEndpointAdmissionKey;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.internal.kv.StoreNames;
import java.util.ArrayList;
import java.util.List;

/**
 * The roles of the plane's self-minted connections and their exact grants (SPEC §13.12). Every
 * role subscribes its own inbox (the issuer also the served run-request subjects, §14.8); JetStream subjects are enumerated per stream.
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

    private static final String JS = "$JS.API.";
    /** The one consumer name each scanner may create. */
    public static final String LEDGER_CONSUMER = "cotal-ledger-scan";
    public static final String RECORDS_CONSUMER = "cotal-records-scan";
    /** The authority stores, beyond its own two, whose rows the issuer reads as issuance sources. */
    public static final List<String> SOURCE_STORES = List.of("auth", "records", "admission", "channels");

    private final PlaneConnection.Role view;

    AuthorityRole(PlaneConnection.Role view) {
        this.view = view;
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
        return new SpaceName(space).subjectPrefix() + ".auth.admin." + instanceId + ".retire-managed";
    }

    /**
     * Subscribe grants of this role: its own inbox; the admin listener also its request subjects
     * (SPEC §14.1); the issuer also observes the served run-request subjects (SPEC §14.8), which
     * it may not publish.
     */
    public Permission subscribe(String space, String userNkey) {
        List<String> sub = new ArrayList<>(List.of("_INBOX_" + userNkey + ".>"));
        if (this == ADMIN) {
            sub.add(retireManagedSubject(space, "*"));
        } else if (this == ISSUER) {
            sub.addAll(ai.cotal.auth.internal.run.ObservedRunRequests.subjects(space));
        }
        return Permission.allow(sub);
    }

    /** The reply allowance: one reply per request received for the admin listener, none otherwise. */
    public ResponsePermission response() {
        return this == ADMIN ? new ResponsePermission(1, 0) : null;
    }

    /** Publish grants of this role in {@code space}. */
    public Permission publish(String space) {
        if (this == ADMIN) {
            return Permission.none(); // its replies only, through the response allowance
        }
        String auth = StoreNames.bucketStream("auth", space);
        String records = StoreNames.bucketStream("records", space);
        String authBucket = StoreNames.bucket("auth", space);
        List<String> pub = new ArrayList<>();
        switch (this) {
            case WRITER -> {
                pub.add(JS + "INFO");
                for (String kind : StoreNames.AUTHORITY_BUCKETS) {
                    pub.add(JS + "STREAM.CREATE." + StoreNames.bucketStream(kind, space));
                    pub.add(JS + "STREAM.INFO." + StoreNames.bucketStream(kind, space));
                    pub.add(JS + "STREAM.UPDATE." + StoreNames.bucketStream(kind, space)); // bounds an unbounded store (SPEC §6)
                }
                pub.add(JS + "STREAM.MSG.GET." + auth);
                pub.add("$KV." + authBucket + ".cred.>");
                pub.add("$KV." + authBucket + ".gate.>"); // serving gates: their only writer (SPEC §14.2)
                pub.add("$KV." + StoreNames.bucket("records", space) + ".svc.auth.>"); // the plane's own spec
                pub.add("$KV." + StoreNames.bucket("admission", space) + "." + ServiceEndpointAdmissionKey.KEY);
                pub.add("$KV." + StoreNames.bucket("admission", space) + ".run.>"); // run admissions, attempts (SPEC §14.7)
                pub.add(JS + "STREAM.MSG.GET." + StoreNames.bucketStream("admission", space));
            }
            case BARRIER -> {
                pub.addAll(reads(auth, records));
                pub.add("$KV." + authBucket + ".plane");
                pub.add("$KV." + authBucket + ".lifecycle.>"); // heads and retirements (SPEC §14.1)
            }
            case READER, DISCOVERY -> {
                pub.addAll(reads(auth, records));
                if (this == DISCOVERY) {
                    String admission = StoreNames.bucketStream("admission", space);
                    pub.add(JS + "STREAM.INFO." + admission);
                    pub.add(JS + "STREAM.MSG.GET." + admission);
                }
            }
            case ISSUER, ISSUER_WINDOW -> {
                for (String kind : List.of("issued", "accepted")) {
                    String bucket = StoreNames.bucket(kind, space);
                    pub.add("$KV." + bucket + ".>");
                    pub.add(JS + "STREAM.INFO.KV_" + bucket);
                    pub.add(JS + "STREAM.MSG.GET.KV_" + bucket);
                    pub.add(JS + "DIRECT.GET.KV_" + bucket);
                    pub.add(JS + "DIRECT.GET.KV_" + bucket + ".>");
                }
                // core's source check reads the other authority stores' rows (SPEC §13.15); no writes
                for (String kind : SOURCE_STORES) {
                    String stream = StoreNames.bucketStream(kind, space);
                    pub.add(JS + "STREAM.INFO." + stream);
                    pub.add(JS + "STREAM.MSG.GET." + stream);
                    if (kind.equals("records") || kind.equals("channels")) { // the stores with direct gets (SPEC §6)
                        pub.add(JS + "DIRECT.GET." + stream);
                        pub.add(JS + "DIRECT.GET." + stream + ".>");
                    }
                }
            }
            case LEDGER_SCANNER -> pub.addAll(scan(auth, LEDGER_CONSUMER));
            case RECORDS_SCANNER -> pub.addAll(scan(records, RECORDS_CONSUMER));
        }
        return Permission.allow(pub);
    }

    private static List<String> reads(String auth, String records) {
        return List.of(JS + "STREAM.INFO." + auth, JS + "STREAM.MSG.GET." + auth, JS + "STREAM.INFO." + records,
                JS + "STREAM.MSG.GET." + records, JS + "DIRECT.GET." + records, JS + "DIRECT.GET." + records + ".>");
    }

    private static List<String> scan(String stream, String consumer) {
        return List.of(JS + "STREAM.INFO." + stream, JS + "STREAM.MSG.GET." + stream, // a scan is closed by the leader
                JS + "CONSUMER.CREATE." + stream + "." + consumer,
                JS + "CONSUMER.CREATE." + stream + "." + consumer + ".>", JS + "CONSUMER.INFO." + stream + "." + consumer,
                JS + "CONSUMER.MSG.NEXT." + stream + "." + consumer, JS + "CONSUMER.DELETE." + stream + "." + consumer);
    }
}
