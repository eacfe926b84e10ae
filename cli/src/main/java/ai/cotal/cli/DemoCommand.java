package ai.cotal.cli;

import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cotal-auth demo [--oidc-issuer URL --oidc-client-id ID --oidc-token-file FILE [--oidc-alg ALG ...]]}:
 * with no flags the demo signs alice in at a local identity provider; with the flags it pins that
 * OpenID Connect issuer instead (SPEC §13.18) and uses the ID token in FILE wherever it signs in.
 * The token is never printed.
 */
final class DemoCommand {
    static final String USAGE = "usage: cotal-auth demo [--oidc-issuer URL --oidc-client-id ID --oidc-token-file FILE"
            + " [--oidc-alg ALG ...]]";
    private static final List<String> TOGETHER = List.of("--oidc-issuer", "--oidc-client-id", "--oidc-token-file");

    private DemoCommand() {
    }

    /** An external issuer for the demo: the pin's issuer, client id and algorithms, and the person's ID token. */
    record Oidc(String issuer, String clientId, List<String> algorithms, String idToken) {
        /** The token's {@code sub}, read without verifying it: the service verifies the token wherever it is used. */
        String subject() {
            try {
                String sub = SignedJWT.parse(idToken).getJWTClaimsSet().getSubject();
                if (sub == null || sub.isEmpty()) {
                    throw new IllegalArgumentException("the ID token in --oidc-token-file has no sub claim");
                }
                return sub;
            } catch (java.text.ParseException e) {
                throw new IllegalArgumentException("the ID token in --oidc-token-file is not a signed JWT");
            }
        }

        @Override
        public String toString() {
            return "Oidc[issuer=" + issuer + ", clientId=" + clientId + ", algorithms=" + algorithms + "]";
        }
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        Oidc oidc;
        try {
            oidc = parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try {
            new ServiceEndpointDemo(out, oidc).run();
            return 0;
        } catch (Exception e) {
            err.println("cotal-auth demo failed: " + e.getMessage());
            return 1;
        }
    }

    /** The flags, or null for the local identity provider; nothing is started on a usage error. */
    static Oidc parse(List<String> args) {
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (!TOGETHER.contains(flag) && !flag.equals("--oidc-alg")) {
                throw new IllegalArgumentException("unknown argument " + flag);
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            List<String> values = flags.computeIfAbsent(flag, k -> new ArrayList<>());
            if (!values.isEmpty() && !flag.equals("--oidc-alg")) {
                throw new IllegalArgumentException(flag + " given twice");
            }
            values.add(args.get(++i));
        }
        if (flags.isEmpty()) {
            return null;
        }
        for (String flag : TOGETHER) {
            if (!flags.containsKey(flag)) {
                throw new IllegalArgumentException(flag + " is missing: " + String.join(", ", TOGETHER) + " go together"
                        + " (--oidc-alg only with them)");
            }
        }
        Path tokenFile = Path.of(flags.get("--oidc-token-file").get(0));
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("--oidc-token-file " + tokenFile + " cannot be read ("
                    + e.getClass().getSimpleName() + ")");
        }
        if (token.isEmpty()) {
            throw new IllegalArgumentException("--oidc-token-file " + tokenFile + " is empty");
        }
        Oidc oidc = new Oidc(flags.get("--oidc-issuer").get(0), flags.get("--oidc-client-id").get(0),
                List.copyOf(flags.getOrDefault("--oidc-alg", List.of())), token);
        oidc.subject(); // a token that is not a JWT with a sub is a usage error, before anything starts
        return oidc;
    }
}
