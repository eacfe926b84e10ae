package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Granter;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import io.nats.client.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;

/**
 * The service-endpoint host engine (SPEC §13.1), internal to the authority plane: it shares the
 * plane's claim hold check, fatal latch, data account and actor ledger. One invocation: the early
 * {@code held} checks (no key read), discovery on the read-only connection, a plan, then an effect
 * connection confined to exactly the planned keys, with passes repeated after a lost race until
 * the deadline. Thread-safe; {@link #close()} refuses new calls and waits for those in flight.
 */
public final class ServiceEndpointEngine implements AutoCloseable {
    /**
     * How the engine reaches the plane it belongs to; {@code claimCheck} begins a check of the
     * plane claim (its read sent) and returns the check's verdict (run, it throws
     * {@link PlaneClaimRefusal} when the claim is not held); {@code budget} is the plane's write
     * budget (SPEC §13.20), charged for each owner request that binds a new request id.
     */
    public record Wiring(List<String> servers, SpaceSigner signer, SSLContext ssl, String bucket, Clock clock,
            ActorLedger ledger, ai.cotal.auth.internal.connect.AuthorityConnection discovery,
            java.util.function.Supplier<Runnable> claimCheck,
            BooleanSupplier tripped, Budget budget) {
    }

    /**
     * The plane's service-endpoint write budget (SPEC §13.20): charges one new request of the
     * principal {@code owner.actor} ({@code actor} {@code *} for an owner proved without one), or
     * refuses with {@code resource-exhausted} before anything is written. Thread-safe.
     */
    @FunctionalInterface
    public interface Budget {
        void charge(String owner, String actor);
    }

    private final Wiring wiring;
    private final Discovery discovery;
    private final Planner planner;
    private final Reads reads;
    private final EffectConnection.Pools pools;
    /** Where effect connections open; their user key is generated per engine (one per call costs a scalar multiplication). */
    private final EffectConnection.Dial dial;
    private final EffectOpening opening;
    /** Effect connections whose close has not finished (closed after the answer, off the caller's thread). */
    private final Set<EffectConnection> closing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile Hooks hooks = Hooks.NONE;
    /** Why a plane fatal path tripped the host while the plane closed, or null. */
    private volatile String tripped;
    /** Completes with the reason once the discovery connection is closed for good (its renewal failed). */
    private final java.util.concurrent.CompletableFuture<String> trip = new java.util.concurrent.CompletableFuture<>();
    private final java.util.concurrent.CompletableFuture<String> discoveryLost = new java.util.concurrent.CompletableFuture<>();
    private final Object gate = new Object();
    private int inFlight;
    private boolean shuttingDown;

    public ServiceEndpointEngine(Wiring wiring) {
        this.wiring = wiring;
        this.discovery = new Discovery(wiring.discovery(), wiring.bucket());
        this.planner = new Planner(wiring.clock(), discovery, wiring.ledger(), this::hooks);
        this.reads = new Reads(discovery);
        this.pools = EffectConnection.Pools.create(wiring.signer().space());
        this.dial = new EffectConnection.Dial(wiring.servers(), wiring.signer(), wiring.ssl(), wiring.bucket(),
                ai.cotal.core.keys.NKeyPair.create(ai.cotal.core.keys.KeyType.USER));
        this.opening = new EffectOpening(dial, pools, wiring.claimCheck(), wiring.clock(), this::retire);
    }

    private Hooks hooks() {
        return hooks;
    }

    void hooks(Hooks hooks) {
        this.hooks = hooks;
    }

    Discovery discovery() {
        return discovery;
    }

    /** What the auth callout reads at every connect (SPEC §13.16), on this engine's discovery connection. */
    public ConnectChecks connects() {
        return new ConnectChecks(discovery, this::isTripped);
    }

    /**
     * Trips the host: a plane fatal path (a lost scanner, a failed renewal) hit while the plane
     * closes, which fences nothing (a fenced plane trips the host through
     * {@link Wiring#tripped}). Every later call, write or read, refuses {@code unavailable} until
     * the plane is opened again; an invocation already past its entry answers {@code held}
     * ({@code tripped}) at its next pass.
     */
    public void trip(String why) {
        tripped = why;
        trip.complete(why);
    }

    /** Completes with the reason once the host tripped on its own ({@link #trip}). */
    java.util.concurrent.CompletableFuture<String> tripped() {
        return trip;
    }

    /**
     * The discovery connection failed to renew and is closed for good: from now on every call,
     * write or read, refuses {@code unavailable} until the plane is opened again. The plane itself
     * keeps serving.
     */
    public void discoveryClosed(String why) {
        discoveryLost.complete(why);
    }

    /** Completes with the reason once the discovery connection is closed for good ({@link #discoveryClosed}). */
    java.util.concurrent.CompletableFuture<String> discoveryLost() {
        return discoveryLost;
    }

    private boolean isTripped() {
        return tripped != null || wiring.tripped().getAsBoolean();
    }

    /**
     * Answers one request for {@code granter} (authenticated by the caller) by {@code deadline}.
     *
     * @throws CotalException {@code unavailable} once closing, or when a read cannot reach the broker
     */
    public HostResult invoke(Granter granter, HostRequest request, Instant deadline) {
        synchronized (gate) {
            if (shuttingDown) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the service-endpoint host is closing; retry on the"
                        + " plane that takes over");
            }
            inFlight++;
        }
        try {
            HostResult result = answer(granter, request, deadline);
            return request instanceof HostRequest.Mutating m ? result.withRequestId(m.requestId()) : result;
        } finally {
            synchronized (gate) {
                inFlight--;
                gate.notifyAll();
            }
        }
    }

    private HostResult answer(Granter granter, HostRequest request, Instant deadline) {
        if (discoveryLost.isDone()) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the service-endpoint host is unavailable until the plane is"
                    + " opened again (its discovery connection closed for good: " + discoveryLost.join() + ")");
        }
        if (isTripped()) { // a write and a read alike: nothing is bound or read (SPEC §13.1 (a))
            throw new CotalException(ErrorCode.UNAVAILABLE, "the service-endpoint host is unavailable (the plane stopped"
                    + " serving); retry shortly");
        }
        if (!request.mutating()) {
            return reads.read(granter, request);
        }
        String role = roleProblem(granter, request);
        if (role != null) {
            return Answers.denied(role);
        }
        if (granter instanceof Granter.Owner o && !currentInteractive(o)) {
            return Answers.held(null, "granter");
        }
        return run(new Invocation((HostRequest.Mutating) request, granter, deadline));
    }

    /**
     * An owner granter's current interactive ledger row: its actor's, or, for an owner proved
     * without an actor (the stock route), any one of that owner's. An unreadable row is not current.
     */
    private boolean currentInteractive(Granter.Owner o) {
        try {
            if (o.actor() == null) {
                return !wiring.ledger().interactiveRows(new ai.cotal.core.id.Owner(o.owner())).isEmpty();
            }
            Optional<ActorRow> row = wiring.ledger().find(Principal.of(o.owner(), o.actor()));
            return row.isPresent() && row.get().kind() == ActorRow.Kind.INTERACTIVE;
        } catch (CotalException e) {
            return false;
        }
    }

    /** Who may ask for what; a request from the wrong kind of granter can never bind. */
    private static String roleProblem(Granter granter, HostRequest request) {
        boolean operator = granter instanceof Granter.Operator;
        if (request instanceof HostRequest.NameBind) {
            return operator ? null : "only the operator binds names";
        }
        if (request instanceof HostRequest.Revoke) {
            return null;
        }
        return operator ? "only the instance's owner may " + request.kind() : null;
    }

    private HostResult run(Invocation inv) {
        EffectOpening.Early early = opening.early(inv);
        EffectConnection effect = null;
        Plan plan = null;
        try {
            while (true) {
                if (!wiring.clock().instant().isBefore(inv.deadline)) {
                    return unfinished(inv, plan, "deadline");
                }
                plan = planner.plan(inv, new Snapshot(discovery));
                if (plan.steps.isEmpty()) {
                    return plan.answer.apply(new Plan.Outcome(inv.wrote));
                }
                charge(inv, plan);
                Set<String> keys = plan.keys();
                if (effect != null) { // a later pass: the plane must still hold the space and not have tripped
                    if (isTripped()) {
                        return unfinished(inv, plan, "tripped");
                    }
                    wiring.claimCheck().get().run();
                }
                if (effect == null) {
                    hooks.afterDiscovery(inv.request, keys);
                    EffectOpening.Early mine = early;
                    early = null; // from here the first pass owns it (opening.open closes it when unused)
                    effect = opening.open(keys, inv, mine);
                } else if (!effect.scope().containsAll(keys)) {
                    return unfinished(inv, plan, "scope-mismatch");
                }
                if (execute(plan, effect, inv)) {
                    return plan.answer.apply(new Plan.Outcome(inv.wrote));
                }
            }
        } catch (EffectConnection.Lost e) {
            return unfinished(inv, plan, "fenced");
        } catch (PlaneClaimRefusal e) {
            if (e.reason() == PlaneClaimRefusal.Reason.UNREACHABLE) { // the claim could not be read: not lost
                return refusedMidway(inv, plan, e);
            }
            return unfinished(inv, plan, "claim");
        } catch (CotalException e) {
            return refusedMidway(inv, plan, e);
        } finally {
            opening.discard(early);
            if (effect != null) {
                retire(effect);
            }
        }
    }

    /**
     * SPEC §13.20: an owner's plan that binds a new request id (the first pass that would write
     * its {@code svc.req} row) is charged once per invocation to the service-endpoint budget,
     * before anything is written; a refusal ({@code resource-exhausted}) reaches the caller as
     * is. A replay of a bound request id plans no bind and is never charged, nor is the operator.
     */
    private void charge(Invocation inv, Plan plan) {
        if (inv.charged || !(inv.granter instanceof Granter.Owner o)
                || plan.steps.stream().noneMatch(step -> step.tag() == Plan.Tag.BIND)) {
            return;
        }
        // an owner proved without an actor is one principal: all its requests share one window
        wiring.budget().charge(o.owner(), o.actor() == null ? "*" : o.actor());
        inv.charged = true;
    }

    /**
     * A refusal met on the way: thrown as itself while nothing was written; once a write may have
     * happened, {@code held} ({@code unavailable} for a store or broker that cannot answer now,
     * e.g. a store electing a leader, else {@code failed: …}), so the request is sent again.
     */
    private static HostResult refusedMidway(Invocation inv, Plan plan, CotalException e) {
        if (!inv.attemptedBind && inv.wrote.isEmpty()) {
            throw e; // nothing was written: the caller sees the refusal itself
        }
        return unfinished(inv, plan, e.code() == ErrorCode.UNAVAILABLE ? "unavailable" : "failed: " + e.getMessage());
    }

    /**
     * {@code held} with the reason, naming the operation once a binding exists or may exist; when
     * the operation was settled here but its release was not, the debt.
     */
    private static HostResult unfinished(Invocation inv, Plan plan, String reason) {
        boolean mayBeBound = plan != null && (plan.bound || inv.wrote.containsKey(Plan.Tag.BIND) || inv.attemptedBind);
        List<String> debt = plan != null && inv.wrote.containsKey(Plan.Tag.SETTLE) && !inv.wrote.containsKey(Plan.Tag.RELEASE)
                ? plan.releases : List.of();
        return Answers.of(HostResult.Status.HELD).operation(mayBeBound ? plan.operationId : null).reason(reason)
                .debt(debt).build();
    }

    /** Runs the plan's steps in order; false when a key moved (the next pass rediscovers). */
    private boolean execute(Plan plan, EffectConnection effect, Invocation inv) {
        Map<String, Long> revisions = new HashMap<>(plan.revisions);
        for (Plan.Step step : plan.steps) {
            hooks.beforeStep(step.key(), step.tag(), effect);
            if (step.mode() == Plan.Mode.VERIFY) {
                Discovery.Seen now = discovery.read(step.key());
                if (!now.present() || now.revision() != revisions.get(step.key())) {
                    return false;
                }
                continue;
            }
            boolean binding = step.tag() == Plan.Tag.BIND;
            if (binding) {
                inv.attemptedBind = true; // from here a binding may exist, unless the broker says it does not
            }
            long expected = step.mode() == Plan.Mode.CREATE ? 0 : revisions.getOrDefault(step.key(), 0L);
            Optional<Long> written;
            try {
                written = effect.publish(step.key(), step.bytes().apply(revisions), expected);
            } catch (CotalException refused) {
                if (binding) {
                    inv.attemptedBind = false; // the broker refused the bind: it was not written
                }
                throw refused;
            }
            if (written.isEmpty()) {
                return false;
            }
            revisions.put(step.key(), written.get());
            if (step.tag() != null) {
                inv.wrote.put(step.tag(), written.get());
            }
        }
        return true;
    }

    /**
     * Closes an invocation's effect connection after its answer: no step of the invocation writes
     * any more (its steps ran on the caller's thread), so the close runs on the pool; the engine's
     * {@link #close()} closes whatever is still open.
     */
    private void retire(EffectConnection effect) {
        closing.add(effect);
        try {
            pools.executor().execute(() -> closeOne(effect));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            closeOne(effect);
        }
    }

    /** Closes one effect connection; true when it is closed (it then leaves the owned set). */
    private boolean closeOne(EffectConnection effect) {
        try {
            hooks.beforeEffectClose(effect);
            effect.close();
        } catch (RuntimeException e) {
            return false;
        }
        if (effect.connection().getStatus() != io.nats.client.Connection.Status.CLOSED) {
            return false;
        }
        closing.remove(effect);
        return true;
    }

    /**
     * Refuses new calls, waits for every call already in flight (each is deadline-bounded), then
     * closes the effect connections it still owns. An effect connection that does not close stays
     * owned and this throws {@code unavailable}: the plane keeps its claim, and {@code close()}
     * may be called again.
     */
    @Override
    public void close() {
        synchronized (gate) {
            shuttingDown = true;
            while (inFlight > 0) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while waiting for host calls in flight");
                }
            }
        }
        int open = 0;
        for (EffectConnection effect : List.copyOf(closing)) {
            if (!closeOne(effect)) {
                open++;
            }
        }
        if (open > 0) {
            throw new CotalException(ErrorCode.UNAVAILABLE, open + " effect connection(s) of the service-endpoint host did"
                    + " not close; the plane keeps its claim: call close() again");
        }
        pools.close();
    }
}
