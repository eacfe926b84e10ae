package ai.cotal.signer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One subject a profile may grant, with placeholders (SPEC §16.2): {@code {t}} one literal token,
 * {@code {t+}} one or more, and the bound names {@code {user}}, {@code {owner}}, {@code {actor}},
 * {@code {iid}}, which must take one value across a claim. A placeholder never matches {@code *}
 * or {@code >} (nor any text holding them), so a template can only be narrowed by a claim, never
 * widened; a {@code *} or {@code >} written in the template must appear as that token. Immutable.
 */
final class SubjectTemplate {
    static final List<String> BOUND = List.of("user", "owner", "actor", "iid");
    private static final String TOKEN = "[\\x21-\\x7e&&[^.*>]]+";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z+]+)\\}");

    private final String text;
    private final Pattern pattern;
    private final List<String> names;

    private SubjectTemplate(String text, Pattern pattern, List<String> names) {
        this.text = text;
        this.pattern = pattern;
        this.names = names;
    }

    /** Compiles {@code text}; an unknown placeholder or a bound name used twice is a bug in the catalogue. */
    static SubjectTemplate of(String text) {
        StringBuilder regex = new StringBuilder();
        List<String> names = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(text);
        int at = 0;
        while (m.find()) {
            regex.append(Pattern.quote(text.substring(at, m.start())));
            String name = m.group(1);
            if (name.equals("t")) {
                regex.append(TOKEN);
            } else if (name.equals("t+")) {
                regex.append(TOKEN).append("(?:\\.").append(TOKEN).append(")*");
            } else if (BOUND.contains(name) && !names.contains(name)) {
                names.add(name);
                regex.append("(?<").append(name).append('>').append(TOKEN).append(')');
            } else {
                throw new IllegalArgumentException("template " + text + ": placeholder {" + name + "}");
            }
            at = m.end();
        }
        regex.append(Pattern.quote(text.substring(at)));
        return new SubjectTemplate(text, Pattern.compile(regex.toString()), List.copyOf(names));
    }

    /**
     * The bindings after {@code subject} matched this template under {@code bindings}, or null
     * when it does not match or a bound placeholder would take another value.
     */
    Map<String, String> match(String subject, Map<String, String> bindings) {
        Matcher m = pattern.matcher(subject);
        if (!m.matches()) {
            return null;
        }
        if (names.isEmpty()) {
            return bindings;
        }
        Map<String, String> next = new HashMap<>(bindings);
        for (String name : names) {
            String value = m.group(name);
            String bound = next.putIfAbsent(name, value);
            if (bound != null && !bound.equals(value)) {
                return null;
            }
        }
        return next;
    }

    @Override
    public String toString() {
        return text;
    }
}
