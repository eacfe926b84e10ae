package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.internal.json.ClosedJson;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The stock service's grant policy (SPEC §13.18): rules that map claims of a verified ID token to
 * an interactive grant, so that a person the identity provider puts in a role or a group is
 * granted at its first exchange, and loses the grant at the first exchange after the provider
 * took the role away. A rule matches a Keycloak realm role ({@code realm_access.roles}), a group
 * ({@code groups}) or any claim by JSON pointer equal to, or an array containing, a string. The
 * rows it writes are ordinary interactive rows labelled {@code policy:<rule name>}
 * ({@link #LABEL_PREFIX}); a row without that label is never touched by the policy.
 *
 * <p>Built by {@link #parse} (the manifest's and the CLI's JSON form) or {@link #of}; every
 * refusal is {@code bad-request} naming the field (e.g. {@code rules[0].when.claim}). Immutable
 * and thread-safe.
 *
 * @param rules the rules, in the order they are tried (1 to 64)
 */
public record GrantPolicy(List<Rule> rules) {
    /** The label prefix that marks a policy grant; a hand grant may not carry it. */
    public static final String LABEL_PREFIX = "policy:";
    static final int MAX_RULES = 64;
    static final int MAX_ACTORS = 16;
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,32}");
    private static final Pattern VALUE = Pattern.compile("[\\x20-\\x7E\\u00A0-\\uFFFF]{1,255}");

    /**
     * Checks the rules.
     *
     * @throws CotalException {@code bad-request} naming {@code rules} or {@code rules[i].name}
     *     when there are none, too many, or two rules share a name
     */
    public GrantPolicy {
        if (rules == null || rules.isEmpty() || rules.size() > MAX_RULES) {
            throw CotalException.badRequest("rules", "list 1 to " + MAX_RULES + " rules");
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < rules.size(); i++) {
            if (rules.get(i) == null) {
                throw CotalException.badRequest("rules[" + i + "]", "must be a rule");
            }
            if (!names.add(rules.get(i).name())) {
                throw CotalException.badRequest("rules[" + i + "].name", "names another rule's name");
            }
        }
        rules = List.copyOf(rules);
    }

    /** A policy of these rules; see the canonical constructor. */
    public static GrantPolicy of(List<Rule> rules) {
        return new GrantPolicy(rules);
    }

    /**
     * What a rule's claim must be: exactly one of a realm role, a group, or a claim by JSON
     * pointer with {@code equals} or {@code contains}.
     *
     * @param realmRole the array {@code realm_access.roles} holds this string
     * @param group the array {@code groups} holds this string
     * @param claim a JSON pointer into the claims (e.g. {@code /department})
     * @param equals with {@code claim}: the value there is this string
     * @param contains with {@code claim}: the value there is an array holding this string
     */
    public record When(String realmRole, String group, String claim, String equals, String contains) {
        /**
         * Checks the form.
         *
         * @throws CotalException {@code bad-request} naming the field
         */
        public When {
            int given = (realmRole != null ? 1 : 0) + (group != null ? 1 : 0) + (claim != null ? 1 : 0);
            if (given != 1) {
                throw CotalException.badRequest("when", "exactly one of realmRole, group and claim");
            }
            if (claim == null && (equals != null || contains != null)) {
                throw CotalException.badRequest(equals != null ? "when.equals" : "when.contains", "goes with claim only");
            }
            if (claim != null) {
                if ((equals == null) == (contains == null)) {
                    throw CotalException.badRequest("when.claim", "needs exactly one of equals and contains");
                }
                try {
                    if (claim.isEmpty() || !claim.startsWith("/") || claim.length() > 255) {
                        throw new IllegalArgumentException();
                    }
                    JsonPointer.compile(claim);
                } catch (IllegalArgumentException e) {
                    throw CotalException.badRequest("when.claim", "must be a JSON pointer such as /department (1 to 255"
                            + " characters, starting with /)");
                }
            }
            value(realmRole, "when.realmRole");
            value(group, "when.group");
            value(equals, "when.equals");
            value(contains, "when.contains");
        }

        /** Whether {@code claims} (the token's claims as JSON) satisfy this condition. */
        boolean matches(JsonNode claims) {
            if (realmRole != null) {
                return holds(claims.at("/realm_access/roles"), realmRole);
            }
            if (group != null) {
                return holds(claims.at("/groups"), group);
            }
            JsonNode value = claims.at(claim);
            return equals != null ? value.isTextual() && value.textValue().equals(equals) : holds(value, contains);
        }

        private static boolean holds(JsonNode array, String value) {
            if (!array.isArray()) {
                return false;
            }
            for (JsonNode item : array) {
                if (item.isTextual() && item.textValue().equals(value)) {
                    return true;
                }
            }
            return false;
        }

        private static void value(String value, String field) {
            if (value != null && !VALUE.matcher(value).matches()) {
                throw CotalException.badRequest(field, "must be 1 to 255 printable characters");
            }
        }
    }

    /**
     * One rule: a subject whose claims satisfy {@code when} is granted, for each of {@code actors},
     * {@code grant}'s scopes and channels (no role, no parent; the label is the rule's mark).
     *
     * @param name the rule's name, {@code [a-z0-9-]{1,32}}, unique in the policy; the row's label is
     *     {@code policy:<name>}
     * @param when the condition on the claims
     * @param actors the actor names it grants (1 to 16, unique)
     * @param scope the scopes granted
     * @param allowSubscribe the channels it may read
     * @param allowPublish the channels it may write
     */
    public record Rule(String name, When when, List<String> actors, List<String> scope, List<String> allowSubscribe,
            List<String> allowPublish) {
        /**
         * Checks every field.
         *
         * @throws CotalException {@code bad-request} naming the field
         */
        public Rule {
            if (name == null || !NAME.matcher(name).matches()) {
                throw CotalException.badRequest("name", "must be 1 to 32 of [a-z0-9-]");
            }
            if (when == null) {
                throw CotalException.badRequest("when", "is required");
            }
            if (actors == null || actors.isEmpty() || actors.size() > MAX_ACTORS) {
                throw CotalException.badRequest("actors", "list 1 to " + MAX_ACTORS + " actor names");
            }
            if (new HashSet<>(actors).size() != actors.size()) {
                throw CotalException.badRequest("actors", "lists an actor twice");
            }
            for (int i = 0; i < actors.size(); i++) {
                if (!Actor.matches(actors.get(i))) {
                    throw CotalException.badRequest("actors[" + i + "]", "must be 1 to 64 of [A-Za-z0-9_]");
                }
            }
            actors = List.copyOf(actors);
            scope = Grant.items(scope == null ? List.of() : scope, "scope");
            allowSubscribe = Grant.items(allowSubscribe == null ? List.of() : allowSubscribe, "allowSubscribe");
            allowPublish = Grant.items(allowPublish == null ? List.of() : allowPublish, "allowPublish");
        }

        /** The label of the rows this rule writes. */
        public String label() {
            return LABEL_PREFIX + name;
        }

        /** The grant this rule writes. */
        public Grant grant() {
            return new Grant(scope, allowSubscribe, allowPublish, Optional.empty(), Optional.empty(), Optional.of(label()));
        }
    }

    /**
     * The first rule, in order, whose condition the claims satisfy and that grants {@code actor};
     * empty when none does.
     *
     * @param claims the verified token's claims as a JSON object (e.g. Nimbus'
     *     {@code JWTClaimsSet.toJSONObject()})
     */
    public Optional<Rule> match(Map<String, Object> claims, String actor) {
        JsonNode tree = ClosedJson.cotal().valueToTree(claims);
        for (Rule rule : rules) {
            if (rule.actors().contains(actor) && rule.when().matches(tree)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    private static final Pattern HAND_LABEL = Pattern.compile("[\\x20-\\x7E]{1,128}");

    /**
     * Checks the label of a grant made by hand (the operator's {@code actor grant}, SPEC §13.18):
     * absent, or 1 to 128 printable ASCII characters that do not start with {@link #LABEL_PREFIX},
     * so a hand grant is never taken for a policy grant.
     *
     * @throws CotalException {@code bad-request} naming {@code label}
     */
    public static void checkHandLabel(String label) {
        if (label == null) {
            return;
        }
        if (!HAND_LABEL.matcher(label).matches()) {
            throw CotalException.badRequest("label", "must be 1 to 128 printable ASCII characters");
        }
        if (label.startsWith(LABEL_PREFIX)) {
            throw CotalException.badRequest("label", "must not start with " + LABEL_PREFIX
                    + ": that prefix marks the grant policy's grants");
        }
    }

    /** Whether {@code row} was written by a grant policy: an interactive row labelled {@code policy:…}. */
    public static boolean isPolicyRow(ActorRow row) {
        return row.kind() == ActorRow.Kind.INTERACTIVE && row.label().map(l -> l.startsWith(LABEL_PREFIX)).orElse(false);
    }

    private record WhenDocument(String realmRole, String group, String claim, String equals, String contains) {
    }

    private record RuleDocument(String name, WhenDocument when, List<String> actors, List<String> scope,
            List<String> allowSubscribe, List<String> allowPublish) {
    }

    private record Document(List<JsonNode> rules) {
    }

    /**
     * Reads the JSON form {@code {rules: [{name, when: {realmRole | group | claim, equals?,
     * contains?}, actors, scope?, allowSubscribe?, allowPublish?}]}}, closed.
     *
     * @param field the name the refusals are prefixed with (e.g. {@code grantPolicy} or
     *     {@code spaces[0].grantPolicy})
     * @throws CotalException {@code bad-request} naming {@code <field>.<the field>}
     */
    public static GrantPolicy parse(String json, String field) {
        if (json == null) {
            throw CotalException.badRequest(field, "is required");
        }
        return from(ClosedJson.tree(ClosedJson.cotal(), json.getBytes(StandardCharsets.UTF_8), field), field);
    }

    /** {@link #parse} of a tree already read (a manifest's entry). */
    public static GrantPolicy from(JsonNode node, String field) {
        if (node == null || !node.isObject()) {
            throw CotalException.badRequest(field, "must be an object {rules: [...]}");
        }
        Document doc = ClosedJson.convert(ClosedJson.cotal(), node, Document.class, field);
        if (doc.rules() == null || doc.rules().isEmpty() || doc.rules().size() > MAX_RULES) {
            throw CotalException.badRequest(field + ".rules", "list 1 to " + MAX_RULES + " rules");
        }
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < doc.rules().size(); i++) {
            String at = field + ".rules[" + i + "]";
            try {
                RuleDocument r = ClosedJson.convert(ClosedJson.cotal(), doc.rules().get(i), RuleDocument.class, at);
                When when = r.when() == null ? null : new When(r.when().realmRole(), r.when().group(), r.when().claim(),
                        r.when().equals(), r.when().contains());
                rules.add(new Rule(r.name(), when, r.actors(), r.scope(), r.allowSubscribe(), r.allowPublish()));
            } catch (CotalException refused) {
                throw prefixed(refused, at);
            }
        }
        try {
            return new GrantPolicy(rules);
        } catch (CotalException refused) {
            throw prefixed(refused, field);
        }
    }

    /** {@code refused} with its field prefixed by {@code at} (a message "<field>: ..." becomes "<at>.<field>: ..."). */
    private static CotalException prefixed(CotalException refused, String at) {
        String message = refused.getMessage();
        if (message.startsWith(at)) {
            return refused;
        }
        return new CotalException(ai.cotal.core.ErrorCode.BAD_REQUEST, at + "." + message);
    }
}
