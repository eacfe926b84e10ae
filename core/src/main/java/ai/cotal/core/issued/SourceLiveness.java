package ai.cotal.core.issued;

/**
 * Answers whether an issuance's source still exists. Pluggable: {@link KvSourceLiveness} (core's
 * check) reads the KV row; the authority plane answers actor-ledger sources from its own ledger
 * and hands its space's other authority rows to core's check (SPEC §13.15).
 * Implementations must fail closed: any doubt is "not live" or an exception, never "live".
 */
@FunctionalInterface
public interface SourceLiveness {
    boolean isLive(Source source);
}
