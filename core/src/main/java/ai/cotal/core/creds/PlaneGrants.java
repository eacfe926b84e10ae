package ai.cotal.core.creds;

import static ai.cotal.core.creds.ProfilePermissions.JS;
import static ai.cotal.core.creds.ProfilePermissions.ONE_REPLY;
import static ai.cotal.core.creds.ProfilePermissions.publish;
import static ai.cotal.core.creds.ProfilePermissions.reads;

import ai.cotal.core.creds.CredentialProfile.Grants;
import ai.cotal.core.creds.ProfilePermissions.Scope;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.Permission;
import java.util.ArrayList;
import java.util.List;

/**
 * The grants of the endpoint-plane, run, session and manager profiles (SPEC §3.5). Each pinned
 * grant names its run, instance or session id in every subject; none reaches a sibling's.
 */
final class PlaneGrants {
    private PlaneGrants() {
    }

    static Grants grants(CredentialProfile profile, Scope scope) {
        String p = scope.prefix();
        String o = scope.owner();
        String pin = scope.pin();
        return switch (profile) {
            case ENDPOINT_SERVE_EXECUTOR -> {
                String work = scope.stream("EPW_");
                String durable = work + ".ep_" + pin;
                yield publish(scope, List.of(JS + "STREAM.INFO." + work, JS + "CONSUMER.DURABLE.CREATE." + durable,
                        JS + "CONSUMER.CREATE." + durable, JS + "CONSUMER.CREATE." + durable + ".>",
                        JS + "CONSUMER.INFO." + durable));
            }
            case RUN_DRIVER -> publish(scope, List.of(p + ".epj." + pin + ".>", JS + "STREAM.INFO." + scope.stream("EPR_"),
                    JS + "CONSUMER.CREATE." + scope.stream("EPR_") + ".*." + p + ".epr." + pin + ".>"));
            case RUN_MEDIATOR -> publish(scope, List.of(p + ".epr." + pin + ".>", p + ".epe." + pin + ".>",
                    JS + "STREAM.INFO." + scope.stream("EPJ_"),
                    JS + "CONSUMER.CREATE." + scope.stream("EPJ_") + ".*." + p + ".epj." + pin + ".>"));
            case RUN_OPERATOR -> publish(scope, List.of(p + ".ctl.run." + pin + ".>"));
            case RUN_ADMITTER -> publish(scope, List.of("$KV." + scope.bucket("admission") + ".run." + pin,
                    JS + "STREAM.MSG.GET.KV_" + scope.bucket("admission")));
            case ENDPOINT_EVICTOR -> {
                String durable = scope.stream("EPW_") + ".ep_" + pin;
                yield publish(scope, List.of(JS + "CONSUMER.INFO." + durable, JS + "CONSUMER.DELETE." + durable));
            }
            case REMOTE_MANAGER -> {
                List<String> pub = new ArrayList<>(List.of("$KV." + scope.bucket("manager") + ".lease." + pin));
                pub.addAll(reads("KV_" + scope.bucket("manager")));
                yield new Grants(Permission.allow(pub), Permission.allow(List.of(scope.inbox(), p + ".svc.manager." + o + ".>")),
                        ONE_REPLY);
            }
            case GOAL_WRITER -> publish(scope, List.of(p + ".epf.goal." + o + "." + scope.actor() + ".>",
                    JS + "STREAM.INFO." + scope.stream("EPF_")));
            case SESSION_LEDGER -> {
                List<String> pub = new ArrayList<>(List.of(p + ".wfj.session." + o + ".>"));
                pub.addAll(reads(scope.stream("WFJ_")));
                yield publish(scope, pub);
            }
            case SESSION_CALLER -> publish(scope, List.of(p + ".svc.session." + o + "." + pin + ".>"));
            case SESSION_SERVING -> new Grants(Permission.none(), Permission.allow(List.of(scope.inbox(),
                    p + ".svc.session." + o + "." + pin + ".>")), ONE_REPLY);
            case DEPLOYER -> deployer(scope);
            case ENDPOINT_SERVE -> new Grants(Permission.none(), Permission.allow(List.of(scope.inbox(),
                    p + ".svc.ep." + scope.endpoint() + "." + pin + ".>")), ONE_REPLY);
            default -> throw new IllegalArgumentException(profile.label());
        };
    }

    private static Grants deployer(Scope scope) {
        String artifacts = StoreNames.artifactStream(scope.space());
        List<String> pub = new ArrayList<>(List.of("$O." + scope.bucket(StoreNames.ARTIFACTS) + ".>", scope.prefix() + ".epc.>",
                JS + "STREAM.INFO." + scope.stream("EPC_"), JS + "CONSUMER.CREATE." + artifacts + ".>",
                JS + "CONSUMER.INFO." + artifacts + ".>", JS + "CONSUMER.DELETE." + artifacts + ".>"));
        pub.addAll(reads(artifacts));
        return publish(scope, pub);
    }
}
