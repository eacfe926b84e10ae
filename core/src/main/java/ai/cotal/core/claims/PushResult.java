package ai.cotal.core.claims;

import java.util.List;

/**
 * A successful push: every expected server answered {@code jwt updated}.
 *
 * @param account  the account whose claim was pushed
 * @param jti      the pushed claim's id
 * @param servers  the servers that confirmed, in answer order
 */
public record PushResult(String account, String jti, List<String> servers) {
    public PushResult {
        servers = List.copyOf(servers);
    }
}
