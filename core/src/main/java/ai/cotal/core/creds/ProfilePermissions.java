package ai.cotal.core.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.creds.CredentialProfile.Grants;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.trust.SpaceName;
import java.util.ArrayList;
import java.util.List;

/**
 * The allow-lists of every profile (SPEC.md §3.5). {@code P} is {@code cotal.<token>}; JetStream
 * API subjects are always enumerated per stream, never {@code $JS.>}. Every data-account profile
 * subscribes its own inbox {@code _INBOX_<connId>.>} and nothing wider.
 */
final class ProfilePermissions {
    private static final String JS = "$JS.API.";

    private ProfilePermissions() {
    }

    /** The context one grant is computed in. */
    record Scope(String space, String connId, String owner, String actor, String lifecycleUid,
            List<String> allowPublish, List<String> allowSubscribe, String observedAccount) {
        String prefix() {
            return SpaceName.subjectPrefix(space);
        }

        String inbox() {
            return "_INBOX_" + connId + ".>";
        }
    }

    static Grants grants(CredentialProfile profile, Scope scope) {
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
            case ACCOUNT_CLAIMS -> new Grants(Permission.allow(List.of("$SYS.REQ.ACCOUNT.*.CLAIMS.UPDATE",
                    "$SYS.REQ.ACCOUNT.*.CLAIMS.LOOKUP", "$SYS.REQ.CLAIMS.LIST")), Permission.allow(List.of(scope.inbox())));
        };
    }

    private static Grants provisioner(Scope scope) {
        List<String> pub = new ArrayList<>(List.of(JS + "INFO"));
        for (String stream : StoreNames.allStreams(scope.space())) {
            pub.add(JS + "STREAM.CREATE." + stream);
            pub.add(JS + "STREAM.INFO." + stream);
        }
        for (String kind : StoreNames.AUTHORITY_BUCKETS) {
            pub.add(JS + "STREAM.UPDATE." + StoreNames.bucketStream(kind, scope.space()));
        }
        String channels = StoreNames.bucket("channels", scope.space());
        pub.add("$KV." + channels + ".>");
        pub.add(JS + "DIRECT.GET.KV_" + channels + ".>");
        pub.add(JS + "STREAM.MSG.GET.KV_" + channels);
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox())));
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
        String chat = StoreNames.stream("CHAT_", scope.space());
        List<String> pub = new ArrayList<>(List.of(JS + "STREAM.INFO." + chat, JS + "CONSUMER.CREATE." + chat + ".>",
                JS + "CONSUMER.INFO." + chat + ".>", JS + "CONSUMER.MSG.NEXT." + chat + ".>",
                JS + "CONSUMER.DELETE." + chat + ".>", "$JS.ACK." + chat + ".>", p + ".dinbox.*.*.*", p + ".dlv.*.*.*",
                "$KV." + StoreNames.bucket("members", scope.space()) + ".>",
                "$KV." + StoreNames.bucket("delivery", scope.space()) + ".lease.*"));
        List<String> sub = List.of(scope.inbox(), p + ".ctl.delivery.*.*", p + ".ctl.delivery-admin.*.*");
        return new Grants(Permission.allow(pub), Permission.allow(sub));
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
        }
        return new Grants(Permission.allow(pub), Permission.allow(sub));
    }

    private static Grants agent(Scope scope) {
        if (scope.lifecycleUid() == null) {
            throw CotalException.badRequest("lifecycleUid", "the agent profile needs a lifecycle uid");
        }
        String p = scope.prefix();
        String o = scope.owner();
        String a = scope.actor();
        String chat = StoreNames.stream("CHAT_", scope.space());
        List<String> pub = new ArrayList<>();
        scope.allowPublish().forEach(ch -> pub.add(p + ".chat." + o + "." + a + "." + ch));
        pub.addAll(List.of(p + ".inst.*.*." + o + "." + a, p + ".svc.*." + o + "." + a, p + ".ctl.delivery." + o + "." + a));
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
