package ai.cotal.core.trust;

import ai.cotal.core.keys.InMemoryAccountSigner;
import java.time.Clock;
import java.util.Objects;

/**
 * A read view of one space under one broker: the broker's trust and the space's data account,
 * checked to belong together. Never persisted as one document: each half is stored on its own.
 * Immutable; {@code toString()} shows public keys only.
 */
public record SpaceAuth(BrokerAuth broker, SpaceAccountAuth account) {
    public SpaceAuth {
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(account, "account");
    }

    /** Composes the two halves; refused unless the broker's operator signed the account. */
    public static SpaceAuth compose(BrokerAuth broker, SpaceAccountAuth account, Clock clock) {
        account.requireSignedBy(broker, clock);
        return new SpaceAuth(broker, account);
    }

    /** A new broker trust and one space under it. */
    public static SpaceAuth create(String space, Clock clock) {
        BrokerAuth broker = BrokerAuth.create(space, clock);
        return new SpaceAuth(broker, SpaceAccountAuth.create(broker, space, clock));
    }

    /** Only what a signer needs: the space, the account's public key and its signing key, held in memory. */
    public SpaceSigner strip() {
        return new SpaceSigner(account.space(), account.accountPublicKey(), new InMemoryAccountSigner(account.signing()));
    }
}
