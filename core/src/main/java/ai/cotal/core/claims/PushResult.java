package ai.cotal.core.claims;

import java.util.List;

/**
 * What a push reached (SPEC §5.1): the servers that confirmed {@code jwt updated} and the expected
 * ones that did not. A push returns it only when {@link #missing()} is empty; otherwise it throws
 * {@link PushIncomplete}, which carries it.
 *
 * @param account     the account whose claim was pushed
 * @param jti         the pushed claim's id
 * @param servers     the ids of the servers that confirmed, in answer order
 * @param serverNames their names, in the same order
 * @param missing     the expected servers that did not answer: names for a push to {@link ClusterMembers}
 *                    ({@code peer <id> (name unknown)} for an unnamed member), ids for a push by server id
 */
public record PushResult(String account, String jti, List<String> servers, List<String> serverNames,
        List<String> missing) {
    /** Copies the lists. */
    public PushResult {
        servers = List.copyOf(servers);
        serverNames = List.copyOf(serverNames);
        missing = List.copyOf(missing);
    }

    /** True when every expected server confirmed. */
    public boolean complete() {
        return missing.isEmpty();
    }
}
