package ai.cotal.core.creds;

import static ai.cotal.core.creds.ProfilePermissions.JS;
import static ai.cotal.core.creds.ProfilePermissions.publish;
import static ai.cotal.core.creds.ProfilePermissions.reads;

import ai.cotal.core.creds.CredentialProfile.Grants;
import ai.cotal.core.creds.ProfilePermissions.Scope;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.Permission;
import java.util.ArrayList;
import java.util.List;

/**
 * The grants of the space-operation profiles (SPEC §3.5): supervisor, membership, purging,
 * channels, incarnation lifecycle, operator inspection, backup and restore, control callers.
 */
final class OperationGrants {
    private OperationGrants() {
    }

    static Grants grants(CredentialProfile profile, Scope scope) {
        String p = scope.prefix();
        String o = scope.owner();
        String a = scope.actor();
        return switch (profile) {
            case SUPERVISOR -> supervisor(scope);
            case MEMBERSHIP_RW -> {
                List<String> pub = new ArrayList<>(List.of("$KV." + scope.bucket("membership") + ".>"));
                pub.addAll(reads("KV_" + scope.bucket("members")));
                pub.addAll(reads("KV_" + scope.bucket("membership")));
                yield publish(scope, pub);
            }
            case PURGER -> publish(scope, List.of(JS + "STREAM.INFO." + scope.stream("CHAT_"),
                    JS + "STREAM.PURGE." + scope.stream("CHAT_"), JS + "STREAM.INFO." + scope.stream("DM_"),
                    JS + "STREAM.PURGE." + scope.stream("DM_")));
            case CHANNEL_WRITER -> channels(scope, List.of(JS + "STREAM.CREATE.KV_" + scope.bucket("channels")));
            case CHANNEL_PURGER -> channels(scope, List.of(JS + "STREAM.INFO." + scope.stream("CHAT_"),
                    JS + "STREAM.PURGE." + scope.stream("CHAT_")));
            case DEPROVISIONER -> publish(scope, List.of(
                    JS + "CONSUMER.DELETE." + scope.stream("DM_") + ".dm_" + scope.incarnation(),
                    JS + "CONSUMER.DELETE." + scope.stream("DLV_") + ".dlv_" + scope.incarnation(),
                    "$KV." + scope.bucket("acl") + "." + o + "." + a + "." + scope.lifecycleUid()));
            case RETIREMENT_REQUESTER -> publish(scope, List.of(p + ".ctl.lifecycle.retire." + o + "." + a + "."
                    + scope.lifecycleUid()));
            case LIFECYCLE_EXECUTOR -> lifecycleExecutor(scope);
            case OPERATOR -> {
                List<String> pub = new ArrayList<>(List.of(JS + "INFO", JS + "STREAM.NAMES", JS + "STREAM.LIST"));
                for (String stream : StoreNames.allStreams(scope.space())) {
                    pub.addAll(List.of(JS + "STREAM.INFO." + stream, JS + "CONSUMER.NAMES." + stream,
                            JS + "CONSUMER.LIST." + stream));
                }
                yield publish(scope, pub);
            }
            case BACKUP -> everyStream(scope, "STREAM.SNAPSHOT.", "$JS.SNAPSHOT.ACK.");
            case RESTORE -> everyStream(scope, "STREAM.RESTORE.", "$JS.SNAPSHOT.RESTORE.");
            case CONTROL_CALLER_PRIVILEGED -> publish(scope, List.of(p + ".ctl.delivery.*.*"));
            case CONTROL_CALLER_ADMIN -> publish(scope, List.of(p + ".ctl.delivery-admin.*.*"));
            default -> throw new IllegalArgumentException(profile.label());
        };
    }

    private static Grants supervisor(Scope scope) {
        String p = scope.prefix();
        String self = scope.owner() + "." + scope.actor();
        String presence = "KV_" + scope.bucket("presence");
        List<String> pub = new ArrayList<>(List.of("$KV." + scope.bucket("manager") + ".lease.*",
                "$KV." + scope.bucket("presence") + "." + self, p + ".ctl.delivery-admin." + self,
                JS + "CONSUMER.CREATE." + presence + ".>", JS + "CONSUMER.INFO." + presence + ".>",
                JS + "CONSUMER.DELETE." + presence + ".>", JS + "STREAM.INFO." + presence));
        pub.addAll(reads("KV_" + scope.bucket("manager")));
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox(),
                p + ".ctl.delivery-admin." + self + ".reply.>")));
    }

    private static Grants channels(Scope scope, List<String> extra) {
        List<String> pub = new ArrayList<>(List.of("$KV." + scope.bucket("channels") + ".>"));
        pub.addAll(reads("KV_" + scope.bucket("channels")));
        pub.addAll(extra);
        return publish(scope, pub);
    }

    private static Grants lifecycleExecutor(Scope scope) {
        String o = scope.owner();
        String a = scope.actor();
        String uid = scope.lifecycleUid();
        List<String> pub = new ArrayList<>(List.of("$KV." + scope.bucket("acl") + "." + o + "." + a + "." + uid));
        for (String prefix : List.of("DM_", "DLV_")) {
            String stream = scope.stream(prefix);
            String durable = prefix.toLowerCase(java.util.Locale.ROOT) + scope.incarnation();
            pub.addAll(List.of(JS + "CONSUMER.DURABLE.CREATE." + stream + "." + durable,
                    JS + "CONSUMER.CREATE." + stream + "." + durable, JS + "CONSUMER.CREATE." + stream + "." + durable + ".>",
                    JS + "CONSUMER.INFO." + stream + "." + durable));
        }
        return new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox(),
                scope.prefix() + ".ctl.lifecycle.*." + o + "." + a + "." + uid)));
    }

    /** {@code STREAM.INFO} and {@code verb} of every stream, plus the snapshot flow subjects. */
    private static Grants everyStream(Scope scope, String verb, String flow) {
        List<String> pub = new ArrayList<>();
        for (String stream : StoreNames.allStreams(scope.space())) {
            pub.addAll(List.of(JS + "STREAM.INFO." + stream, JS + verb + stream, flow + stream + ".>"));
        }
        return publish(scope, pub);
    }
}
