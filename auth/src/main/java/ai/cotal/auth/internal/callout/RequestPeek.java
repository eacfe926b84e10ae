package ai.cotal.auth.internal.callout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.util.Base64;

/**
 * What the responder's dispatcher reads of an opened request before any signature is checked
 * (SPEC §13.16): enough to pick its lane and its source, nothing it acts on. The worker decodes and
 * verifies the request in full afterwards. Stateless and thread-safe.
 */
final class RequestPeek {
    /** Longer than any bearer the exchange issues (about 1 KiB) by far; a longer token is no bearer. */
    static final int MAX_BEARER = 16 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestPeek() {
    }

    /** The claims of a compact JWT, unverified; a missing node when it does not read as one. */
    static JsonNode claims(String jwt) {
        int first = jwt.indexOf('.');
        int second = first < 0 ? -1 : jwt.indexOf('.', first + 1);
        if (second < 0) {
            return MissingNode.getInstance();
        }
        try {
            return JSON.readTree(Base64.getUrlDecoder().decode(jwt.substring(first + 1, second)));
        } catch (IOException | IllegalArgumentException e) {
            return MissingNode.getInstance();
        }
    }

    /**
     * True when {@code token} has a bearer's shape: a compact JWS, three non-empty base64url parts,
     * at most {@link #MAX_BEARER} characters. Says nothing of its validity.
     */
    static boolean bearerShaped(String token) {
        if (token.isEmpty() || token.length() > MAX_BEARER) {
            return false;
        }
        int dots = 0;
        char previous = '.';
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '.') {
                if (previous == '.' || ++dots > 2) {
                    return false;
                }
            } else if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
            previous = c;
        }
        return dots == 2 && previous != '.';
    }
}
