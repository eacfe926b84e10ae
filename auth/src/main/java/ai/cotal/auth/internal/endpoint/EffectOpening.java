package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostRequest;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How an invocation's first pass gets its effect connection (SPEC §13.1 (d)): the connect runs
 * while the plane claim is checked (the claim's read is sent first and its answer judged once the
 * connection is open, on the same thread), and no step is written before the check passed. A register's
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
    /** Begins the plane claim's check (its read sent) and returns its verdict: run, it throws when the claim is not held. */
    private final Supplier<Runnable> claimCheck;
    private final Clock clock;
    private final Consumer<EffectConnection> retire;

    /** {@code retire} closes a connection after use (or unused) and owns it until it is closed. */
    EffectOpening(EffectConnection.Dial dial, EffectConnection.Pools pools, Supplier<Runnable> claimCheck, Clock clock,
            Consumer<EffectConnection> retire) {
        this.dial = dial;
        this.pools = pools;
        this.claimCheck = claimCheck;
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
                claimCheck.get().run();
            } catch (RuntimeException refused) {
                discard(early);
                throw refused;
            }
            return take(early.connection());
        }
        discard(early);
        Runnable claim = claimCheck.get(); // its read travels while the connection opens, and no thread waits for it
        EffectConnection effect = null;
        RuntimeException notOpened = null;
        try {
            effect = EffectConnection.open(dial, pools, keys, clock.instant(), inv.deadline);
        } catch (RuntimeException e) {
            notOpened = e;
        }
        try {
            claim.run();
        } catch (RuntimeException refused) {
            if (effect != null) {
                retire.accept(effect);
            }
            throw refused;
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
