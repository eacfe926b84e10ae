package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Broker and space trust persisted through a {@link SecretStore} (SPEC §7): {@code auth/broker.json}
 * (operator seed and JWT, system account key and JWT, generation; <b>never</b> the system
 * account's seed) and {@code auth/account.<hex>.json} per space, plus an index of the spaces.
 * Every write is guarded so that a mistake cannot orphan the tenants: a different operator, a
 * generation that is not the successor, an older system-account claim (a rollback) and an account
 * file that names another space are refused; a corrupt record refuses every read that needs it.
 * Thread-safe as far as the store is; one writer per root is assumed.
 */
public final class TrustRecords {
    private final SecretStore store;
    private final Clock clock;

    /** Trust records in {@code store}, their claims checked at {@code clock}'s time. Reads and writes nothing yet. */
    public TrustRecords(SecretStore store, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private record KeyAndJwt(String seed, String jwt) {
        @Override
        public String toString() {
            return "KeyAndJwt[jwt]";
        }
    }

    private record SystemPart(String pub, String jwt) {
    }

    private record BrokerDocument(Integer version, KeyAndJwt operator, SystemPart sys, Long gen) {
    }

    private record AccountPart(String pub, String seed, String jwt, String signingSeed, String signingPub) {
        @Override
        public String toString() {
            return "AccountPart[" + pub + "]";
        }
    }

    private record AccountDocument(Integer version, String space, AccountPart account) {
    }

    private record IndexDocument(Integer version, List<String> spaces) {
    }

    /** Persists {@code broker} (without its system seed) after the guards. */
    public void saveBroker(BrokerAuth broker) {
        Optional<BrokerAuth> existing = loadBroker();
        long generation = broker.generation();
        if (existing.isPresent()) {
            BrokerAuth current = existing.get();
            if (!current.operatorPublicKey().equals(broker.operatorPublicKey())) {
                throw new CotalException(ErrorCode.CONFLICT, "broker.json: holds operator " + current.operatorPublicKey()
                        + "; writing another operator would orphan every space");
            }
            boolean sameSystem = current.systemAccount().equals(broker.systemAccount())
                    && current.systemJwt().equals(broker.systemJwt());
            if (sameSystem) {
                generation = current.generation();
            } else {
                if (broker.generation() != current.generation() + 1) {
                    throw new CotalException(ErrorCode.CONFLICT, "broker.json: generation " + broker.generation()
                            + " is not the successor of " + current.generation());
                }
                if (NatsJwt.decode(broker.systemJwt()).iat() < NatsJwt.decode(current.systemJwt()).iat()) {
                    throw new CotalException(ErrorCode.CONFLICT, "broker.json: the system-account claim is older than"
                            + " the stored one (a rollback)");
                }
            }
        } else {
            for (SpaceAccountAuth account : loadAccounts(broker)) {
                account.requireSignedBy(broker, clock);
            }
        }
        BrokerDocument document = new BrokerDocument(1, new KeyAndJwt(broker.operator().seed(), broker.operatorJwt()),
                new SystemPart(broker.systemAccount(), broker.systemJwt()), generation);
        store.put(SecretKeys.brokerKey(), ClosedJson.write(ClosedJson.cotal(), document));
    }

    /** The stored broker trust (never with a system signer); empty when none was saved. */
    public Optional<BrokerAuth> loadBroker() {
        String key = SecretKeys.brokerKey();
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            BrokerDocument doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), BrokerDocument.class, key);
            if (doc.version() == null || doc.version() != 1 || doc.operator() == null || doc.sys() == null || doc.gen() == null) {
                throw CotalException.badRequest(key, "needs version 1, operator, sys and gen");
            }
            NKeyPair operator = NKeyPair.fromSeed(doc.operator().seed(), KeyType.OPERATOR, key + ".operator.seed");
            BrokerAuth broker = new BrokerAuth(operator, doc.operator().jwt(), doc.sys().pub(), doc.sys().jwt(),
                    Optional.empty(), doc.gen());
            ClaimVerifier verifier = new ClaimVerifier(clock);
            var operatorClaims = verifier.verifyOperator(broker.operatorJwt());
            if (!operatorClaims.sub().equals(operator.publicKey())
                    || !broker.systemAccount().equals(operatorClaims.nats().systemAccount())) {
                throw CotalException.badRequest(key, "the operator JWT does not match its seed or system account");
            }
            if (!verifier.verifyAccount(broker.systemJwt(), operatorClaims).sub().equals(broker.systemAccount())) {
                throw CotalException.badRequest(key, "the system JWT is not for sys.pub");
            }
            return Optional.of(broker);
        } catch (CotalException e) {
            throw corrupt(key, e);
        }
    }

    /** Persists a space's data account after the guards, then lists it in the index. */
    public void saveAccount(SpaceAccountAuth account) {
        String key = SecretKeys.accountKey(account.space());
        Optional<byte[]> existing = store.get(key);
        if (existing.isPresent()) {
            AccountDocument doc = readAccount(key, existing.get());
            if (!account.space().equals(doc.space())) {
                throw new CotalException(ErrorCode.CONFLICT, key + ": holds space '" + doc.space() + "', not '"
                        + account.space() + "'");
            }
        }
        loadBroker().ifPresent(broker -> account.requireSignedBy(broker, clock));
        AccountPart part = new AccountPart(account.accountPublicKey(), account.account().seed(), account.jwt(),
                account.signing().seed(), account.signing().publicKey());
        store.put(key, ClosedJson.write(ClosedJson.cotal(), new AccountDocument(1, account.space(), part)));
        Set<String> spaces = new LinkedHashSet<>(index());
        if (spaces.add(account.space())) {
            store.put(SecretKeys.accountIndexKey(), ClosedJson.write(ClosedJson.cotal(),
                    new IndexDocument(1, List.copyOf(spaces))));
        }
    }

    /** A space's data account; empty when none was saved. */
    public Optional<SpaceAccountAuth> loadAccount(String space) {
        String key = SecretKeys.accountKey(space);
        return store.get(key).map(bytes -> toAccount(key, readAccount(key, bytes), space));
    }

    /**
     * Every saved space account, for a config render: refused when any listed record is missing
     * or corrupt, or was not signed by {@code broker}'s operator.
     */
    public List<SpaceAccountAuth> loadAccounts(BrokerAuth broker) {
        List<SpaceAccountAuth> accounts = new ArrayList<>();
        for (String space : index()) {
            SpaceAccountAuth account = loadAccount(space).orElseThrow(() -> new CotalException(ErrorCode.DATA_LOSS,
                    SecretKeys.accountIndexKey() + " lists '" + space + "' but its account record is missing"));
            try {
                account.requireSignedBy(broker, clock);
            } catch (CotalException e) {
                throw corrupt(SecretKeys.accountKey(space), e);
            }
            accounts.add(account);
        }
        return accounts;
    }

    /**
     * The spaces the index lists (the root's tenants, SPEC §7.5), in the order they were added;
     * each may still be unreadable ({@link #loadAccount} says). A corrupt index is {@code data-loss}.
     */
    public List<String> spaces() {
        return List.copyOf(index());
    }

    private List<String> index() {
        String key = SecretKeys.accountIndexKey();
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isEmpty()) {
            return List.of();
        }
        try {
            IndexDocument doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), IndexDocument.class, key);
            if (doc.version() == null || doc.version() != 1 || doc.spaces() == null) {
                throw CotalException.badRequest(key, "needs version 1 and spaces");
            }
            return doc.spaces();
        } catch (CotalException e) {
            throw corrupt(key, e);
        }
    }

    private static AccountDocument readAccount(String key, byte[] bytes) {
        try {
            AccountDocument doc = ClosedJson.read(ClosedJson.cotal(), bytes, AccountDocument.class, key);
            if (doc.version() == null || doc.version() != 1 || doc.space() == null || doc.account() == null) {
                throw CotalException.badRequest(key, "needs version 1, space and account");
            }
            return doc;
        } catch (CotalException e) {
            throw corrupt(key, e);
        }
    }

    private static SpaceAccountAuth toAccount(String key, AccountDocument doc, String space) {
        try {
            if (!space.equals(doc.space())) {
                throw CotalException.badRequest(key, "names space '" + doc.space() + "'");
            }
            AccountPart part = doc.account();
            NKeyPair account = NKeyPair.fromSeed(part.seed(), KeyType.ACCOUNT, key + ".account.seed");
            NKeyPair signing = NKeyPair.fromSeed(part.signingSeed(), KeyType.ACCOUNT, key + ".account.signingSeed");
            if (!account.publicKey().equals(part.pub()) || !signing.publicKey().equals(part.signingPub())
                    || !NatsJwt.decode(part.jwt()).sub().equals(part.pub())) {
                throw CotalException.badRequest(key, "keys and JWT do not match");
            }
            return new SpaceAccountAuth(doc.space(), account, signing, part.jwt());
        } catch (CotalException e) {
            throw corrupt(key, e);
        }
    }

    private static CotalException corrupt(String key, CotalException cause) {
        if (cause.code() == ErrorCode.DATA_LOSS) {
            return cause;
        }
        return new CotalException(ErrorCode.DATA_LOSS, key + " is corrupt: " + cause.getMessage(), cause);
    }
}
