package ai.cotal.auth.exchange;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Principal;
import com.nimbusds.jwt.JWTClaimsSet;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The row a human exchange uses (SPEC §13.18): the ledger's row of the principal, after the grant
 * policy had its say. A row without the policy's label is used as it is; otherwise the first
 * matching rule's grant is written when the row is missing or differs, and a policy row whose
 * subject no longer matches is revoked and refused. Writes re-read the row under one lock first,
 * so concurrent exchanges of a subject write once. Every write is logged and counted. Thread-safe.
 */
final class PolicyAdmission {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyAdmission.class);

    private final Supplier<ActorLedger> ledger;
    private final Optional<GrantPolicy> policy;
    private final Consumer<String> counted;
    private final Object writes = new Object();

    /** {@code counted} takes each automatic write's action for the meters ({@code granted}, {@code regranted}, {@code revoked}). */
    PolicyAdmission(Supplier<ActorLedger> ledger, Optional<GrantPolicy> policy, Consumer<String> counted) {
        this.ledger = ledger;
        this.policy = policy;
        this.counted = counted;
    }

    /** The row the exchange of {@code principal}, proved by {@code claims}, uses; refused when there is none. */
    ActorRow row(Principal principal, JWTClaimsSet claims) {
        Optional<GrantPolicy.Rule> match = policy.flatMap(p -> p.match(claims.toJSONObject(), principal.actor().value()));
        Optional<ActorRow> found = ledger.get().find(principal);
        if (found.isPresent() && (!GrantPolicy.isPolicyRow(found.get()) || same(found.get(), match))) {
            return found.get(); // a hand grant (or a managed row), or the policy's grant as it stands
        }
        if (found.isEmpty() && match.isEmpty()) {
            throw notGranted(principal, "");
        }
        synchronized (writes) {
            found = ledger.get().find(principal); // decide again on the row as it is now
            if (found.isPresent() && (!GrantPolicy.isPolicyRow(found.get()) || same(found.get(), match))) {
                return found.get();
            }
            if (match.isEmpty()) {
                if (found.isEmpty()) {
                    throw notGranted(principal, "");
                }
                ledger.get().revoke(principal);
                audit("revoked", principal, found.get().label().orElse("").substring(GrantPolicy.LABEL_PREFIX.length()),
                        found.get());
                throw notGranted(principal, ": the grant policy no longer admits it");
            }
            ActorRow granted = ledger.get().grantActor(principal, match.get().grant());
            audit(found.isEmpty() ? "granted" : "regranted", principal, match.get().name(), granted);
            return granted;
        }
    }

    /**
     * Runs an operator's write of a person's row ({@code /actors/grant}, {@code /actors/revoke})
     * under the lock the policy's own writes take, so that the policy's decide-then-write never
     * overwrites or revokes a hand grant that landed in between.
     */
    <T> T exclusive(Supplier<T> write) {
        synchronized (writes) {
            return write.get();
        }
    }

    /** Whether the policy row {@code row} is exactly what {@code match} grants. */
    private static boolean same(ActorRow row, Optional<GrantPolicy.Rule> match) {
        return match.isPresent() && row.label().equals(Optional.of(match.get().label()))
                && row.scope().equals(match.get().scope()) && row.allowSubscribe().equals(match.get().allowSubscribe())
                && row.allowPublish().equals(match.get().allowPublish()) && row.role().isEmpty() && row.parent().isEmpty();
    }

    private void audit(String action, Principal principal, String rule, ActorRow row) {
        LOG.info("auth-service: grant policy {} {} rule {} lifecycle {}", action, principal, rule, row.lifecycleUid().value());
        counted.accept(action);
    }

    private static CotalException notGranted(Principal principal, String why) {
        return ExchangeArms.refused("actor " + principal.actor().value() + " is not granted" + why);
    }
}
