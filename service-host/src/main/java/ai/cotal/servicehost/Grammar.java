package ai.cotal.servicehost;

import java.util.List;
import java.util.regex.Pattern;

/** The grammars of SPEC §13.1; every check names the field it refuses. */
final class Grammar {
    static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9_-]{16,64}");
    static final Pattern OPERATION_ID = Pattern.compile("[a-z2-7]{26}");
    static final Pattern INSTANCE_ID = Pattern.compile("[a-z0-9]{26,32}");
    static final Pattern OWNER = Pattern.compile("u_[a-z2-7]{26}");
    static final Pattern ACTOR = Pattern.compile("[A-Za-z0-9_]{1,64}");
    static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    static final Pattern CLAIM = Pattern.compile("[\\x20-\\x7e]{1,256}");
    static final Pattern CAPABILITY = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    static final Pattern GRANT_ID = Pattern.compile("[a-z2-7]{26}");
    static final Pattern AUDIT_ID = Pattern.compile("[\\x21-\\x7e]{1,128}");
    static final Pattern CURSOR = Pattern.compile("[A-Za-z0-9_-]{1,512}");
    static final long MAX_SAFE = (1L << 53) - 1;

    private Grammar() {
    }

    static String check(Pattern pattern, String value, String field) {
        if (value == null) {
            throw ContractException.badRequest(field, "is required");
        }
        if (!pattern.matcher(value).matches()) {
            throw ContractException.badRequest(field, "does not match " + pattern.pattern());
        }
        return value;
    }

    static String optional(Pattern pattern, String value, String field) {
        return value == null ? null : check(pattern, value, field);
    }

    /** An endpoint name or a bound name ({@link EndpointName}). */
    static String name(String value, String field) {
        return EndpointName.check(value, field);
    }

    static String optionalName(String value, String field) {
        return value == null ? null : name(value, field);
    }

    static List<String> capabilities(List<String> values, String field) {
        if (values == null) {
            throw ContractException.badRequest(field, "is required");
        }
        for (int i = 0; i < values.size(); i++) {
            String capability = check(CAPABILITY, values.get(i), field + "[" + i + "]");
            if (capability.equals("journal") || capability.startsWith("journal-")) {
                throw ContractException.badRequest(field + "[" + i + "]", "journal access is never granted");
            }
            if (capability.equals("any") || capability.equals("ledger")) {
                throw ContractException.badRequest(field + "[" + i + "]", "only the instance itself can be a target");
            }
        }
        if (values.stream().distinct().count() != values.size()) {
            throw ContractException.badRequest(field, "lists a capability twice");
        }
        return List.copyOf(values);
    }

    static long revision(Long value, String field) {
        if (value == null) {
            throw ContractException.badRequest(field, "is required");
        }
        if (value < 0 || value > MAX_SAFE) {
            throw ContractException.badRequest(field, "must be 0 to 2^53-1");
        }
        return value;
    }

    static Integer limit(Integer value) {
        if (value != null && (value < 1 || value > 100)) {
            throw ContractException.badRequest("limit", "must be 1 to 100");
        }
        return value;
    }
}
