package ai.cotal.servicehost;

import java.util.regex.Pattern;

/**
 * Endpoint names and bound names (SPEC §13.1): one DNS label or several joined by {@code .}, in
 * reverse-DNS order as platform endpoints are ({@code com.example.weather}), at most
 * {@value #MAX_LENGTH} characters. A label is {@code [a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?}.
 *
 * <p>A NATS subject token cannot hold a {@code .}, so keys and subjects carry the name's
 * <em>token</em>: the name with every {@code .} replaced by {@code _}. No name contains {@code _},
 * so the token maps back to exactly one name. Stateless; thread-safe.
 */
public final class EndpointName {
    /** The longest name, as for a DNS name. */
    public static final int MAX_LENGTH = 253;
    private static final String LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
    private static final Pattern NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    private static final Pattern TOKEN = Pattern.compile(LABEL + "(_" + LABEL + ")*");

    private EndpointName() {
    }

    /** True when {@code name} is a well-formed endpoint name. */
    public static boolean valid(String name) {
        return name != null && name.length() <= MAX_LENGTH && NAME.matcher(name).matches();
    }

    /**
     * The subject and key token of {@code name}: {@code com.example.weather} becomes
     * {@code com_example_weather}.
     *
     * @throws ContractException {@code bad-request} naming {@code endpoint} when the name is malformed
     */
    public static String token(String name) {
        return check(name, "endpoint").replace('.', '_');
    }

    /**
     * The name a token stands for ({@link #token}'s inverse).
     *
     * @throws ContractException {@code bad-request} naming {@code token} when it is no name's token
     */
    public static String fromToken(String token) {
        if (token == null || token.length() > MAX_LENGTH || !TOKEN.matcher(token).matches()) {
            throw ContractException.badRequest("token", "is not an endpoint name's token");
        }
        return token.replace('_', '.');
    }

    /** {@code name} when well-formed, else {@code bad-request} naming {@code field}. */
    static String check(String name, String field) {
        if (name == null) {
            throw ContractException.badRequest(field, "is required");
        }
        if (!valid(name)) {
            throw ContractException.badRequest(field, "must be DNS labels ([a-z0-9-], 1 to 63, no leading or trailing -)"
                    + " joined by '.', at most " + MAX_LENGTH + " characters");
        }
        return name;
    }
}
