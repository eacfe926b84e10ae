package ai.cotal.core.trust;

import ai.cotal.core.id.SpaceName;
import ai.cotal.core.CotalException;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.AccountLimits;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.OperatorClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * A broker's trust root: the operator (key and self-signed JWT) and the system account {@code SYS}
 * (JetStream off: nats-server refuses to boot otherwise). The system account's own key signs the
 * system users; it is held only in memory after {@link #create} or {@link #rotateSystemAccount}
 * and is never part of the persisted form ({@link #withoutSystemSigner()}).
 *
 * <p>Immutable and thread-safe; {@code toString()} shows public keys only.
 *
 * @param operator       the operator key (a secret)
 * @param operatorJwt    the operator JWT, naming {@code systemAccount}
 * @param systemAccount  the system account's public key
 * @param systemJwt      the system account JWT, signed by the operator
 * @param systemSigner   the system account's key, present only right after creation or rotation
 * @param generation     0 at creation, +1 on each system-account rotation
 */
public record BrokerAuth(NKeyPair operator, String operatorJwt, String systemAccount, String systemJwt,
        Optional<NKeyPair> systemSigner, long generation) {
    /** The system account's name. */
    public static final String SYSTEM_ACCOUNT_NAME = "SYS";

    public BrokerAuth {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(operatorJwt, "operatorJwt");
        Objects.requireNonNull(systemAccount, "systemAccount");
        Objects.requireNonNull(systemJwt, "systemJwt");
        Objects.requireNonNull(systemSigner, "systemSigner");
        if (operator.type() != KeyType.OPERATOR) {
            throw CotalException.badRequest("operator", "must be an operator key");
        }
        if (generation < 0) {
            throw CotalException.badRequest("generation", "must not be negative");
        }
        systemSigner.ifPresent(signer -> {
            if (!signer.publicKey().equals(systemAccount)) {
                throw CotalException.badRequest("systemSigner", "is not the system account's key");
            }
        });
    }

    /** A new operator named {@code cotal-<token(label)>} with a fresh system account. */
    public static BrokerAuth create(String label, Clock clock) {
        if (label == null || label.isBlank()) {
            throw CotalException.badRequest("label", "must not be blank");
        }
        NKeyPair operator = NKeyPair.create(KeyType.OPERATOR);
        return issue(operator, "cotal-" + SpaceName.token(label), NKeyPair.create(KeyType.ACCOUNT), 0, clock, 0);
    }

    private static BrokerAuth issue(NKeyPair operator, String name, NKeyPair system, long generation, Clock clock,
            long notBefore) {
        long iat = Math.max(clock.instant().getEpochSecond(), notBefore);
        String operatorJwt = NatsJwt.encode(ClaimSet.of(operator.publicKey(), name,
                OperatorClaim.withSystemAccount(system.publicKey()), clock.instant()).withIat(iat), operator);
        String systemJwt = NatsJwt.encode(ClaimSet.of(system.publicKey(), SYSTEM_ACCOUNT_NAME,
                new AccountClaim(AccountLimits.unlimited(false), null, null, null, null, null, null),
                clock.instant()).withIat(iat), operator);
        return new BrokerAuth(operator, operatorJwt, system.publicKey(), systemJwt, Optional.of(system), generation);
    }

    /** The operator's public key ({@code O...}). */
    public String operatorPublicKey() {
        return operator.publicKey();
    }

    /** The operator's name, as in its JWT. */
    public String operatorName() {
        return NatsJwt.decode(operatorJwt).name();
    }

    /** The verified operator claims. */
    public ClaimSet<OperatorClaim> operatorClaims(Clock clock) {
        return new ClaimVerifier(clock).verifyOperator(operatorJwt);
    }

    /**
     * A new system account and a re-issued operator JWT naming it; generation + 1. The new claims
     * are issued no earlier than the old ones, so a resolver never prefers the old.
     */
    public BrokerAuth rotateSystemAccount(Clock clock) {
        long previous = NatsJwt.decode(systemJwt).iat();
        return issue(operator, operatorName(), NKeyPair.create(KeyType.ACCOUNT), generation + 1, clock, previous + 1);
    }

    /** The persisted form: everything but the system account's key. */
    public BrokerAuth withoutSystemSigner() {
        return new BrokerAuth(operator, operatorJwt, systemAccount, systemJwt, Optional.empty(), generation);
    }

    /** The system account's key; refused when this form no longer holds it. */
    public NKeyPair requireSystemSigner() {
        return systemSigner.orElseThrow(() -> CotalException.failedPrecondition(
                "systemSigner: the system account's key is held only right after creation or rotation;"
                        + " rotate the system account to mint system users"));
    }
}
