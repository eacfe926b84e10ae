package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostRequest;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * How an invocation's first pass gets its effect connection (SPEC §13.1 (d)): the connect runs
 * while the plane claim is checked, and no step is written before the check passed. A register's
 * connect starts before its discovery, for the scope a fresh register plans (known from the
 * request and the ids the invocation minted); it is used only when the plan's keys are exactly
 * that scope, else closed unused. Thread-safe.
 */
final class EffectOpening {
    /** A connection opening on the pool for {@code scope}. */
    record Early(Set<String> scope, CompletableFuture<EffectConnection> connection) {
    }

    private final EffectConnection.Dial dial;
    private final EffectConnection.Pools pools;
    private final Runnable assertClaimHeld;
    private final Clock clock;
    private final Consumer<EffectConnection> retire;

    /** {@code retire} closes a connection after use (or unused) and owns it until it is closed. */
    EffectOpening(EffectConnection.Dial dial, EffectConnection.Pools pools, Runnable assertClaimHeld, Clock clock,
            Consumer<EffectConnection> retire) {
        this.dial = dial;
        this.pools = pools;
        this.assertClaimHeld = assertClaimHeld;
        this.clock = clock;
        this.retire = retire;
    }

    /** A register's connection, opening now for the scope a fresh register plans; null for the other kinds. */
    Early early(Invocation inv) {
        if (!(inv.request instanceof HostRequest.Register r)) {
            return null;
        }
        Set<String> scope = Set.of(Rows.req(r.requestId()), Rows.cap(r.endpoint(), r.instanceId()),
                Rows.op(inv.mintedOperation), Rows.prop(inv.mintedOperation), Rows.gate(r.endpoint(), r.instanceId()));
        try {
            return new Early(scope, CompletableFuture.supplyAsync(
                    () -> EffectConnection.open(dial, pools, scope, clock.instant(), inv.deadline), pools.executor()));
        } catch (RejectedExecutionException e) { // the engine is closing: the first pass opens its own
            return null;
        }
    }

    /**
     * The first pass's connection for {@code keys}: {@code early} when its scope is exactly
     * {@code keys}, else one opened now (closing {@code early} unused). A refused claim check
     * closes the connection unused and is thrown, even when the connection could not open either.
     *
     * @throws EffectConnection.Lost when the connection could not open
     */
    EffectConnection open(Set<String> keys, Invocation inv, Early early) {
        if (early != null && early.scope().equals(keys)) {
            try {
                assertClaimHeld.run();
            } catch (RuntimeException refused) {
                discard(early);
                throw refused;
            }
            return take(early.connection());
        }
        discard(early);
        CompletableFuture<Void> claim;
        try {
            claim = CompletableFuture.runAsync(assertClaimHeld, pools.executor());
        } catch (RejectedExecutionException e) {
            assertClaimHeld.run();
            claim = CompletableFuture.completedFuture(null);
        }
        EffectConnection effect = null;
        RuntimeException notOpened = null;
        try {
            effect = EffectConnection.open(dial, pools, keys, clock.instant(), inv.deadline);
        } catch (RuntimeException e) {
            notOpened = e;
        }
        try {
            claim.join();
        } catch (CompletionException e) {
            if (effect != null) {
                retire.accept(effect);
            }
            throw e.getCause() instanceof RuntimeException refused ? refused : e;
        }
        if (notOpened != null) {
            throw notOpened;
        }
        return effect;
    }

    /** Closes an early connection nobody uses, once its connect ended (null: nothing to close). */
    void discard(Early early) {
        if (early == null) {
            return;
        }
        try {
            retire.accept(early.connection().join());
        } catch (CompletionException e) {
            // it never opened: nothing to close
        }
    }

    private static EffectConnection take(CompletableFuture<EffectConnection> connection) {
        try {
            return connection.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failed ? failed : e;
        }
    }
}
