package ai.cotal.core.issued;

/**
 * Answers whether an issuance's source still exists. Pluggable: the authority plane answers
 * actor-ledger sources from its own ledger; {@link KvSourceLiveness} reads the KV row.
 * Implementations must fail closed: any doubt is "not live" or an exception, never "live".
 */
@FunctionalInterface
public interface SourceLiveness {
    boolean isLive(Source source);
}
