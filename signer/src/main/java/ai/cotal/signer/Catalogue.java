package ai.cotal.signer;

import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.id.SpaceName;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes of the user JWTs the plane signs in one space (SPEC §16.2, the catalogue): per
 * profile, the publish and subscribe templates and the reply allowance. Built from the grant table
 * the plane mints its own connections with where one exists (core's authority grants), so the two
 * cannot drift apart. Immutable.
 */
final class Catalogue {
    /** One profile's shape: every granted subject must match one of its templates. */
    record Shape(SignerProfile profile, List<SubjectTemplate> publish, List<SubjectTemplate> subscribe, long replies) {
    }

    private final Map<SignerProfile, Shape> shapes;

    private Catalogue(Map<SignerProfile, Shape> shapes) {
        this.shapes = shapes;
    }

    /** The shapes of {@code space}, in catalogue order. */
    static Catalogue of(String space) {
        String p = new SpaceName(space).subjectPrefix();
        String accepted = StoreNames.bucket("accepted", space);
        String auth = StoreNames.bucket("auth", space);
        String records = StoreNames.bucket("records", space);
        Map<SignerProfile, Shape> shapes = new EnumMap<>(SignerProfile.class);
        String inbox = "_INBOX_{t}.>";
        put(shapes, SignerProfile.CALLOUT_MEMBER, List.of(p + ".chat.{owner}.{actor}.{t}", p + ".svc.ep.{t}.{t}.{t}"),
                List.of(inbox, p + ".chat.*.*.{t}"), 0);
        put(shapes, SignerProfile.CALLOUT_ENDPOINT_SERVER, List.of(), List.of(p + ".svc.ep.{t}.{t}.>", inbox), 1);
        put(shapes, SignerProfile.CALLOUT_MANAGER_CALLER, List.of(p + ".svc.manager.{owner}.{t}",
                p + ".svc.manager.{owner}.run.{t}.*.*", p + ".svc.manager.{owner}.run.{t}.*.{t}",
                "$JS.API.DIRECT.GET.KV_" + accepted + ".$KV." + accepted + ".accepted.v1.{t}"), List.of(inbox), 0);
        put(shapes, SignerProfile.CALLOUT_SESSION_CALLER, List.of(p + ".svc.manager.{t}.{t}"), List.of(inbox), 0);
        role(shapes, SignerProfile.AUTH_MINT, AuthorityGrants.WRITER, space);
        role(shapes, SignerProfile.AUTH_BARRIER, AuthorityGrants.BARRIER, space);
        role(shapes, SignerProfile.AUTH_READER, AuthorityGrants.READER, space);
        role(shapes, SignerProfile.EP_DISCOVERY, AuthorityGrants.DISCOVERY, space);
        role(shapes, SignerProfile.AUTH_ISSUER, AuthorityGrants.ISSUER, space);
        role(shapes, SignerProfile.AUTH_ADMIN, AuthorityGrants.ADMIN, space);
        role(shapes, SignerProfile.AUTH_ISSUER_WINDOW, AuthorityGrants.ISSUER_WINDOW, space);
        role(shapes, SignerProfile.AUTH_SCAN, AuthorityGrants.LEDGER_SCANNER, space);
        role(shapes, SignerProfile.RECORDS_SCAN, AuthorityGrants.RECORDS_SCANNER, space);
        String own = "_INBOX_{user}.>";
        put(shapes, SignerProfile.EP_EFFECT, List.of("$KV." + auth + ".svc.{t+}", "$KV." + auth + ".epgate.{t}.{t}",
                "$KV." + auth + ".plane.witness.*"),
                List.of(own), 0);
        String manager = "$KV." + records + ".svc.manager.{iid}";
        put(shapes, SignerProfile.MANAGER_REGISTRAR, List.of(manager + ".>"), List.of(own), 0);
        put(shapes, SignerProfile.MANAGER_SERVICE, List.of(manager + ".status", manager + ".session.>",
                AuthorityGrants.retireManagedSubject(space, "{iid}")), List.of(p + ".svc.manager.{owner}.{t}",
                p + ".svc.manager.{owner}.run.{t}.*.*", own), 1);
        put(shapes, SignerProfile.RUN_DRIVER, List.of(p + ".run.{owner}.{t}.>"), List.of(own), 0);
        return new Catalogue(shapes);
    }

    private static void role(Map<SignerProfile, Shape> shapes, SignerProfile profile, AuthorityGrants role, String space) {
        Permission publish = role.publish(space);
        Permission subscribe = role.subscribe(space, "{user}");
        put(shapes, profile, publish.allow() == null ? List.of() : publish.allow(), subscribe.allow(),
                role.response() == null ? 0 : role.response().max());
    }

    private static void put(Map<SignerProfile, Shape> shapes, SignerProfile profile, List<String> publish,
            List<String> subscribe, long replies) {
        shapes.put(profile, new Shape(profile, compile(publish), compile(subscribe), replies));
    }

    private static List<SubjectTemplate> compile(List<String> subjects) {
        List<SubjectTemplate> templates = new ArrayList<>();
        subjects.forEach(s -> templates.add(SubjectTemplate.of(s)));
        return List.copyOf(templates);
    }

    /** The shapes in catalogue order. */
    Iterable<Shape> shapes() {
        return shapes.values();
    }
}
