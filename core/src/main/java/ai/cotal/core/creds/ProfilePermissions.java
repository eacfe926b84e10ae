package ai.cotal.core.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.creds.CredentialProfile.Grants;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.id.SpaceName;
import java.util.ArrayList;
import java.util.List;

/**
 * The allow-lists of every profile (SPEC.md §3.5). {@code P} is {@code cotal.<token>}; JetStream
 * API subjects are always enumerated per stream, never {@code $JS.>}. Every data-account profile
 * subscribes its own inbox {@code _INBOX_<connId>.>} and nothing wider.
 */
final class ProfilePermissions {
    static final String JS = "$JS.API.";
    /** Serving profiles answer one reply per request they receive, within a minute. */
    static final ai.cotal.core.jwt.ResponsePermission ONE_REPLY = new ai.cotal.core.jwt.ResponsePermission(1, 60_000_000_000L);

    private ProfilePermissions() {
    }

    /** The context one grant is computed in. */
    record Scope(String space, String connId, String owner, String actor, String lifecycleUid,
            List<String> allowPublish, List<String> allowSubscribe, String observedAccount, String pin, String endpoint) {
        String prefix() {
            return new SpaceName(space).subjectPrefix();
        }

        String inbox() {
            return "_INBOX_" + connId + ".>";
        }

        String stream(String prefix) {
            return StoreNames.stream(prefix, space);
        }

        String bucket(String kind) {
            return StoreNames.bucket(kind, space);
        }

        /** {@code <o>-<a>-<uid>}: the suffix of an incarnation's durables. */
        String incarnation() {
            return owner + "-" + actor + "-" + lifecycleUid;
        }
    }

    /** {@code STREAM.INFO}, {@code STREAM.MSG.GET}, {@code DIRECT.GET} (both forms) of {@code stream}. */
    static List<String> reads(String stream) {
        return List.of(JS + "STREAM.INFO." + stream, JS + "STREAM.MSG.GET." + stream, JS + "DIRECT.GET." + stream,
                JS + "DIRECT.GET." + stream + ".>");
    }

    /** Publish grants only; the subscription is the inbox. */
    static Grants publish(Scope scope, List<String> pub) {
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox())));
    }

    static Grants grants(CredentialProfile profile, Scope scope) {
        requirePin(profile, scope);
        return switch (profile) {
            case PROVISIONER -> provisioner(scope);
            case ISSUER -> issuer(scope);
            case ISSUED_STORE_RECREATE -> issuedStores(scope, List.of("STREAM.INFO.", "STREAM.MSG.GET.", "STREAM.SNAPSHOT.",
                    "STREAM.DELETE."), "$JS.SNAPSHOT.ACK.");
            case ISSUED_STORE_RESTORE -> issuedStores(scope, List.of("STREAM.INFO.", "STREAM.RESTORE."), "$JS.SNAPSHOT.RESTORE.");
            case DELIVERY -> delivery(scope);
            case OBSERVER -> observer(scope, false);
            case ADMIN -> observer(scope, true);
            case AGENT -> agent(scope);
            case PROBE -> new Grants(Permission.none(), Permission.allow(List.of(scope.inbox())));
            case TEARDOWN -> teardown(scope);
            case MEMBERSHIP_OBSERVER -> new Grants(
                    Permission.allow(List.of("$SYS.REQ.ACCOUNT." + scope.observedAccount() + ".CONNZ")),
                    Permission.allow(List.of(scope.inbox(), "$SYS.ACCOUNT." + scope.observedAccount() + ".CONNECT",
                            "$SYS.ACCOUNT." + scope.observedAccount() + ".DISCONNECT")));
            case CONNECTION_EVICTOR -> new Grants(Permission.allow(List.of("$SYS.REQ.SERVER.*.KICK")),
                    Permission.allow(List.of(scope.inbox())));
            // JSZ: the cluster's members (SPEC §5.5)
            case ACCOUNT_CLAIMS -> new Grants(Permission.allow(List.of("$SYS.REQ.ACCOUNT.*.CLAIMS.UPDATE",
                    "$SYS.REQ.ACCOUNT.*.CLAIMS.LOOKUP", "$SYS.REQ.CLAIMS.LIST", "$SYS.REQ.SERVER.*.JSZ")),
                    Permission.allow(List.of(scope.inbox())));
            case SUPERVISOR, MEMBERSHIP_RW, PURGER, CHANNEL_WRITER, CHANNEL_PURGER, DEPROVISIONER, RETIREMENT_REQUESTER,
                    LIFECYCLE_EXECUTOR, OPERATOR, BACKUP, RESTORE, CONTROL_CALLER_PRIVILEGED, CONTROL_CALLER_ADMIN ->
                    OperationGrants.grants(profile, scope);
            case ENDPOINT_SERVE_EXECUTOR, RUN_DRIVER, RUN_MEDIATOR, RUN_OPERATOR, RUN_ADMITTER, ENDPOINT_EVICTOR,
                    REMOTE_MANAGER, GOAL_WRITER, SESSION_LEDGER, SESSION_CALLER, SESSION_SERVING, DEPLOYER, ENDPOINT_SERVE ->
                    PlaneGrants.grants(profile, scope);
        };
    }

    /** A pinned profile refuses a missing pin; a profile without a {@code pin} refuses one (never ignored). */
    private static void requirePin(CredentialProfile profile, Scope scope) {
        String label = profile.label();
        switch (profile.pin()) {
            case LIFECYCLE_UID -> {
                if (scope.lifecycleUid() == null) {
                    throw CotalException.badRequest("lifecycleUid", "the " + label + " profile needs a lifecycle uid");
                }
            }
            case RUN, INSTANCE, SESSION -> {
                if (scope.pin() == null) {
                    throw CotalException.badRequest("pin", "the " + label + " profile needs a pin (its "
                            + profile.pin().name().toLowerCase(java.util.Locale.ROOT) + " id)");
                }
            }
            case ENDPOINT_INSTANCE -> {
                if (scope.pin() == null || scope.endpoint() == null) {
                    throw CotalException.badRequest("pin", "the " + label + " profile needs an endpoint and an instance id");
                }
            }
            case NONE -> {
            }
        }
        if (scope.pin() != null && (profile.pin() == CredentialProfile.Pin.NONE
                || profile.pin() == CredentialProfile.Pin.LIFECYCLE_UID)) {
            throw CotalException.badRequest("pin", "the " + label + " profile takes no pin");
        }
    }

    private static Grants provisioner(Scope scope) {
        List<String> pub = new ArrayList<>(List.of(JS + "INFO"));
        for (String stream : StoreNames.allStreams(scope.space())) {
            pub.add(JS + "STREAM.CREATE." + stream);
            pub.add(JS + "STREAM.INFO." + stream);
            pub.add(JS + "STREAM.UPDATE." + stream); // bounds an unbounded store, reconciles a TTL (SPEC §6.1)
        }
        for (String prefix : List.of("DM_", "DLV_", "TASK_")) {
            String stream = scope.stream(prefix);
            pub.addAll(List.of(JS + "CONSUMER.CREATE." + stream + ".>", JS + "CONSUMER.DURABLE.CREATE." + stream + ".>",
                    JS + "CONSUMER.INFO." + stream + ".>"));
        }
        for (String kind : List.of("channels", "acl")) {
            pub.add("$KV." + scope.bucket(kind) + ".>");
            pub.addAll(reads("KV_" + scope.bucket(kind)));
        }
        for (String kind : StoreNames.TTL_BUCKETS) {
            pub.add("$KV." + scope.bucket(kind) + "._cotal_ttl_reconcile");
            pub.addAll(reads("KV_" + scope.bucket(kind)));
        }
        return publish(scope, pub);
    }

    private static Grants issuer(Scope scope) {
        List<String> pub = new ArrayList<>();
        for (String kind : List.of("issued", "accepted")) {
            String bucket = StoreNames.bucket(kind, scope.space());
            pub.add("$KV." + bucket + ".>");
            pub.add(JS + "STREAM.INFO.KV_" + bucket);
            pub.add(JS + "STREAM.MSG.GET.KV_" + bucket);
            pub.add(JS + "DIRECT.GET.KV_" + bucket);
            pub.add(JS + "DIRECT.GET.KV_" + bucket + ".>");
        }
        pub.add(JS + "STREAM.MSG.GET." + StoreNames.bucketStream("auth", scope.space()));
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox())));
    }

    /** The named API verbs, plus the snapshot flow subjects, on exactly the issued and accepted streams. */
    private static Grants issuedStores(Scope scope, List<String> verbs, String flow) {
        List<String> pub = new ArrayList<>();
        for (String kind : List.of("issued", "accepted")) {
            String stream = StoreNames.bucketStream(kind, scope.space());
            verbs.forEach(verb -> pub.add(JS + verb + stream));
            pub.add(flow + stream + ".>");
        }
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox())));
    }

    private static Grants delivery(Scope scope) {
        String p = scope.prefix();
        String chat = scope.stream("CHAT_");
        String inbox = scope.stream("INBOX_");
        List<String> pub = new ArrayList<>(List.of(JS + "STREAM.INFO." + chat, JS + "CONSUMER.CREATE." + chat + ".>",
                JS + "CONSUMER.INFO." + chat + ".>", JS + "CONSUMER.MSG.NEXT." + chat + ".>",
                JS + "CONSUMER.DELETE." + chat + ".>", "$JS.ACK." + chat + ".>", JS + "STREAM.INFO." + inbox,
                JS + "CONSUMER.DURABLE.CREATE." + inbox + ".reader", JS + "CONSUMER.CREATE." + inbox + ".reader",
                JS + "CONSUMER.CREATE." + inbox + ".reader.>", JS + "CONSUMER.INFO." + inbox + ".reader",
                JS + "CONSUMER.MSG.NEXT." + inbox + ".reader", "$JS.ACK." + inbox + ".reader.>",
                p + ".dinbox.*.*.*", p + ".dlv.*.*.*", p + ".ctl.delivery.*.*.reply.>", p + ".ctl.delivery-admin.*.*.reply.>",
                "$KV." + scope.bucket("members") + ".>", "$KV." + scope.bucket("delivery") + ".lease.*"));
        for (String kind : List.of("presence", "channels", "members", "acl", "delivery")) {
            pub.addAll(reads("KV_" + scope.bucket(kind)));
        }
        List<String> sub = List.of(scope.inbox(), p + ".ctl.delivery.*.*", p + ".ctl.delivery-admin.*.*");
        return new Grants(Permission.allow(pub), Permission.allow(sub), ONE_REPLY);
    }

    private static Grants observer(Scope scope, boolean admin) {
        String p = scope.prefix();
        List<String> pub = new ArrayList<>();
        List<String> streams = admin ? List.of("CHAT_", "DM_") : List.of("CHAT_");
        for (String prefix : streams) {
            String stream = StoreNames.stream(prefix, scope.space());
            pub.addAll(List.of(JS + "STREAM.INFO." + stream, JS + "DIRECT.GET." + stream, JS + "DIRECT.GET." + stream + ".>",
                    JS + "CONSUMER.CREATE." + stream + ".>", JS + "CONSUMER.INFO." + stream + ".>",
                    JS + "CONSUMER.MSG.NEXT." + stream + ".>", JS + "CONSUMER.DELETE." + stream + ".>"));
        }
        List<String> sub = new ArrayList<>(List.of(scope.inbox(), p + ".chat.>"));
        if (admin) {
            sub.add(p + ".inst.>");
            sub.add(p + ".svc.>");
            sub.add(p + ".task.>");
        }
        return new Grants(Permission.allow(pub), Permission.allow(sub));
    }

    private static Grants agent(Scope scope) {
        String p = scope.prefix();
        String o = scope.owner();
        String a = scope.actor();
        String chat = StoreNames.stream("CHAT_", scope.space());
        List<String> pub = new ArrayList<>();
        scope.allowPublish().forEach(ch -> pub.add(p + ".chat." + o + "." + a + "." + ch));
        pub.addAll(List.of(p + ".inst.*.*." + o + "." + a, p + ".task.*." + o + "." + a, p + ".ctl.delivery." + o + "." + a,
                "$KV." + scope.bucket("presence") + "." + o + "." + a));
        pub.addAll(reads("KV_" + scope.bucket("channels")));
        for (String ch : scope.allowSubscribe()) {
            pub.add(JS + "CONSUMER.CREATE." + chat + ".*." + p + ".chat.*.*." + ch);
        }
        List<String> deny = new ArrayList<>();
        for (String prefix : List.of("DM_", "DLV_")) {
            String stream = StoreNames.stream(prefix, scope.space());
            String durable = prefix.toLowerCase(java.util.Locale.ROOT) + o + "-" + a + "-" + scope.lifecycleUid();
            pub.addAll(List.of(JS + "CONSUMER.INFO." + stream + "." + durable, JS + "CONSUMER.MSG.NEXT." + stream + "." + durable,
                    "$JS.ACK." + stream + "." + durable + ".>"));
        }
        for (String prefix : List.of("DM_", "TASK_", "DLV_")) {
            String stream = StoreNames.stream(prefix, scope.space());
            deny.addAll(List.of(JS + "CONSUMER.CREATE." + stream, JS + "CONSUMER.CREATE." + stream + ".>",
                    JS + "CONSUMER.DURABLE.CREATE." + stream + ".>"));
        }
        List<String> sub = new ArrayList<>(List.of(scope.inbox(), p + ".ctl.delivery." + o + "." + a + ".>"));
        scope.allowSubscribe().forEach(ch -> sub.add(p + ".chat.*.*." + ch));
        return new Grants(Permission.allowDeny(pub, deny), Permission.allow(sub));
    }

    private static Grants teardown(Scope scope) {
        List<String> pub = new ArrayList<>(List.of(JS + "STREAM.NAMES"));
        for (String stream : StoreNames.allStreams(scope.space())) {
            pub.add(JS + "STREAM.DELETE." + stream);
            pub.add(JS + "STREAM.INFO." + stream);
        }
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox())));
    }
}
