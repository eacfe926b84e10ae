package ai.cotal.core.internal.grants;

import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.id.SpaceName;
import java.util.ArrayList;
import java.util.List;

/**
 * The exact grants of the authority plane's self-minted connections in a space (SPEC §13.12),
 * one constant per role. The plane mints its connections with them and the remote signer's
 * catalogue (SPEC §16.2) admits claims by them, so the two read one table. Every role subscribes
 * its own inbox (the issuer also the served run-request subjects, §14.8); JetStream subjects are
 * enumerated per stream. Stateless.
 */
public enum AuthorityGrants {
    /** Creates, verifies and bounds the stores, writes credential rows, reads the stores' pressure. */
    WRITER,
    /** The only role that writes the {@code plane} key and the lifecycle records. */
    BARRIER,
    /** Leader reads of the auth and records stores. */
    READER,
    /** The ledger scanner: one literal consumer on the auth store. */
    LEDGER_SCANNER,
    /** The records scanner: one literal consumer on the records store. */
    RECORDS_SCANNER,
    /** Read-only discovery for service-endpoint invocations. */
    DISCOVERY,
    /** Writes issued-authority evidence and accepted rows; reads the other authority stores' rows. */
    ISSUER,
    /** The admin listener (SPEC §14.1): subscribes the retire subjects, publishes only replies. */
    ADMIN,
    /** An issuer window (SPEC §14.7): the issuer's store grants, subscribing only its inbox. */
    ISSUER_WINDOW;

    private static final String JS = "$JS.API.";
    /** The one consumer name the ledger scanner may create. */
    public static final String LEDGER_CONSUMER = "cotal-ledger-scan";
    /** The one consumer name the records scanner may create. */
    public static final String RECORDS_CONSUMER = "cotal-records-scan";
    /** The authority stores, beyond its own two, whose rows the issuer reads as issuance sources. */
    public static final List<String> SOURCE_STORES = List.of("auth", "records", "admission", "channels");
    /** The service-endpoint admission marker's key in the admission store (SPEC §13.19). */
    public static final String ADMISSION_KEY = "service-endpoints";

    /** The subject a manager instance sends its retire requests on (SPEC §14.1). */
    public static String retireManagedSubject(String space, String instanceId) {
        return new SpaceName(space).subjectPrefix() + ".auth.admin." + instanceId + ".retire-managed";
    }

    /** The served run-request subjects the issuer observes (SPEC §14.8): resumes and answers of every owner. */
    public static List<String> observedRunRequests(String space) {
        String p = new SpaceName(space).subjectPrefix();
        return List.of(p + ".svc.manager.*.run.resume.*.*", p + ".svc.manager.*.run.answer.*.*");
    }

    /**
     * What an issued caller may publish for {@code op} ({@code resume} or {@code answer}) of
     * {@code owner}'s manager (SPEC §14.8): {@code P.svc.manager.<owner>.run.<op>.*.<caller>},
     * {@code P} the subject prefix {@code prefix}, {@code caller} its accepted token: one of the
     * subjects {@link #observedRunRequests} observes. The callout grants it; a forward requires the
     * caller's issued ceiling to hold it.
     */
    public static String runCallerGrant(String prefix, String owner, String op, String caller) {
        return prefix + ".svc.manager." + owner + ".run." + op + ".*." + caller;
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
            sub.addAll(observedRunRequests(space));
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
                pub.add("$KV." + authBucket + ".ledger.>"); // the store ledger's rows, pin and marker (SPEC §13.23)
                pub.add("$KV." + authBucket + ".gate.>"); // serving gates: their only writer (SPEC §14.2)
                pub.add("$KV." + StoreNames.bucket("records", space) + ".svc.auth.>"); // the plane's own spec
                pub.add("$KV." + StoreNames.bucket("admission", space) + "." + ADMISSION_KEY);
                pub.add("$KV." + StoreNames.bucket("admission", space) + ".run.>"); // run admissions, attempts (SPEC §14.7)
                pub.add(JS + "STREAM.MSG.GET." + StoreNames.bucketStream("admission", space));
                pub.add("$KV." + authBucket + ".plane.witness.*"); // fenced writes' witness rows (SPEC §13.13)
                pub.add("$KV." + StoreNames.bucket("records", space) + ".plane.>"); // fence stamps and witnesses
                pub.add("$KV." + StoreNames.bucket("admission", space) + ".plane.>"); // fence stamps and witnesses
            }
            case BARRIER -> {
                pub.addAll(reads(auth, records));
                pub.add("$KV." + authBucket + ".plane");
                pub.add("$KV." + authBucket + ".lifecycle.>"); // heads and retirements (SPEC §14.1)
                pub.add("$KV." + authBucket + ".plane.>"); // the auth fence rows and witnesses (SPEC §13.13)
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
