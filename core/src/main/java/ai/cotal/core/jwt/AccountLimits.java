package ai.cotal.core.jwt;

/**
 * An account's {@code limits}: NATS limits (-1 is unlimited) and JetStream limits (JetStream is
 * off unless {@code mem_storage} or {@code disk_storage} is non-zero). Immutable.
 */
public record AccountLimits(Long subs, Long data, Long payload, Long imports, Long exports, Boolean wildcards,
        Boolean disallowBearer, Long conn, Long leaf, Long memStorage, Long diskStorage, Long streams,
        Long consumer, Long maxAckPending, Long memMaxStreamBytes, Long diskMaxStreamBytes, Boolean maxBytesRequired) {

    /** Everything unlimited; JetStream unlimited when {@code jetstream}, otherwise off. */
    public static AccountLimits unlimited(boolean jetstream) {
        long js = jetstream ? -1L : 0L;
        return new AccountLimits(-1L, -1L, -1L, -1L, -1L, true, null, -1L, -1L, js, js,
                jetstream ? -1L : null, jetstream ? -1L : null, null, null, null, null);
    }

    /** True when {@code conn = 0}: no connection is admitted (a retired space, SPEC §5.2). */
    public boolean admitsNoConnection() {
        return conn != null && conn == 0;
    }

    /** The same limits with {@code conn} replaced (0 refuses every new connection). */
    public AccountLimits withConn(long connections) {
        return new AccountLimits(subs, data, payload, imports, exports, wildcards, disallowBearer, connections, leaf,
                memStorage, diskStorage, streams, consumer, maxAckPending, memMaxStreamBytes, diskMaxStreamBytes,
                maxBytesRequired);
    }
}
