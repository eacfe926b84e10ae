package ai.cotal.auth.internal.plane;

import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.issued.KvSourceLiveness;
import ai.cotal.core.issued.Source;
import ai.cotal.core.issued.SourceLiveness;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The source check an issuing plane (or callout replica) resolves with, the seed's
 * {@code composedSourceIsLive} (SPEC §13.15): an actor-ledger source
 * ({@code {space, cotal_actors_<token>, actor.<o>.<a>.<uid>}}) is answered from the ledger this
 * plane reads ({@link ai.cotal.auth.internal.ledger.LedgerReads#actorSourceIsLive}); every other source of the space's
 * authority stores goes to core's check ({@link KvSourceLiveness}) on the issuer connection,
 * which refuses anything else of the actor-ledger bucket. A source of another space, or of a
 * bucket the issuer does not read, is not live. Thread-safe.
 */
final class PlaneSourceLiveness implements SourceLiveness {
    private final String space;
    private final String actorsBucket;
    private final Set<String> authorityBuckets;
    private final ai.cotal.auth.internal.ledger.LedgerBackend ledger;
    private final KvSourceLiveness core;

    PlaneSourceLiveness(String space, ai.cotal.auth.internal.ledger.LedgerBackend ledger, Connection issuerConnection) {
        this.space = space;
        this.actorsBucket = actorsBucket(space);
        this.authorityBuckets = StoreNames.AUTHORITY_BUCKETS.stream().map(kind -> StoreNames.bucket(kind, space))
                .collect(Collectors.toUnmodifiableSet());
        this.ledger = ledger;
        this.core = new KvSourceLiveness(issuerConnection);
    }

    /** The bucket actor-ledger sources of {@code space} carry: {@code cotal_actors_<token>}. */
    static String actorsBucket(String space) {
        return KvSourceLiveness.ACTOR_LEDGER_BUCKET_PREFIX + SpaceName.token(space);
    }

    @Override
    public boolean isLive(Source source) {
        if (!source.space().equals(space)) {
            return false; // a plane attests only its own space's rows
        }
        if (source.bucket().equals(actorsBucket)) {
            String[] parts = source.key().split("\\.", -1);
            if (parts.length == 4 && parts[0].equals("actor")) {
                return Principal.matches(parts[1] + "." + parts[2]) && LifecycleUid.matches(parts[3])
                        && ledger.actorSourceIsLive(Principal.of(parts[1], parts[2]), new LifecycleUid(parts[3]));
            }
            return core.isLive(source); // not the actor-ledger shape: core's check refuses it
        }
        return authorityBuckets.contains(source.bucket()) && core.isLive(source);
    }
}
