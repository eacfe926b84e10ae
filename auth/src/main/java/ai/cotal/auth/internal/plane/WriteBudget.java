package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.StoreNames;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a principal can make the plane write (SPEC §13.20): credential-row mints, issuances (a
 * manager-caller connect under a new nonce) and service-endpoint writes (an owner request that
 * binds a new request id), each counted per principal ({@code owner.actor})
 * and per space in a rolling minute. {@link #charge} refuses with {@code resource-exhausted},
 * naming the limit, before anything is written; a refused attempt is not counted, so a refused
 * principal never uses up the space's budget. Before the windows it asks the store-pressure
 * signal, when there is one. Principal windows live in an LRU of {@link #MAX_PRINCIPALS}: an
 * evicted principal starts a fresh window (only after that many other principals wrote since;
 * the space's window still holds). Each window keeps at most its limit's timestamps. One budget
 * per plane or callout replica: replicas count on their own. Thread-safe.
 */
public final class WriteBudget {
    /** How many principals' windows are kept. */
    static final int MAX_PRINCIPALS = 16_384;
    private static final long MINUTE_MILLIS = 60_000;

    /** What is charged, with the stores it writes and the words of its refusals. */
    public enum Kind {
        /** A credential row in the auth store (the exchange's success path). */
        MINT("credential budget", "credentials", "new credentials", "retry later"),
        /** Evidence and an accepted row (a manager-caller connect under a new nonce). */
        ISSUANCE("issuance budget", "manager-caller issuances", "new manager-caller issuances",
                "reconnect later under a new nonce"),
        /** The rows of an owner's service-endpoint request under a new request id (bind, intend, records). */
        ENDPOINT("service-endpoint budget", "new service-endpoint requests", "new service-endpoint requests",
                "retry later (a replay of an admitted request id is not charged)");

        private final String budget;
        private final String made;
        private final String refusedWrites;
        private final String retry;

        Kind(String budget, String made, String refusedWrites, String retry) {
            this.budget = budget;
            this.made = made;
            this.refusedWrites = refusedWrites;
            this.retry = retry;
        }
    }

    private final ai.cotal.auth.WriteBudgets limits;
    private final Clock clock;
    private final StorePressure pressure;
    private final Map<Kind, List<String>> stores;
    private final AuthMetrics metrics;
    private final Map<Kind, Window> space = new java.util.EnumMap<>(Kind.class);
    private final Map<String, Window> principals = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
            return size() > MAX_PRINCIPALS;
        }
    };

    /**
     * A budget of {@code limits}; {@code pressure} (may be null) is asked first, for the streams
     * {@code stores} maps each kind to.
     */
    WriteBudget(ai.cotal.auth.WriteBudgets limits, Clock clock, StorePressure pressure, Map<Kind, List<String>> stores) {
        this(limits, clock, pressure, stores, AuthMetrics.NONE);
    }

    /** As above, counting each refusal in {@code metrics} ({@code cotal.auth.budget.refusals}, SPEC §13.21). */
    WriteBudget(ai.cotal.auth.WriteBudgets limits, Clock clock, StorePressure pressure, Map<Kind, List<String>> stores,
            AuthMetrics metrics) {
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
        this.pressure = pressure;
        this.stores = Map.copyOf(stores);
        for (Kind kind : Kind.values()) {
            space.put(kind, new Window());
        }
    }

    /**
     * The plane's budget: the options' limits, with the pressure of the auth store (mints and
     * service-endpoint writes) and the issued and accepted stores (issuances), all read on the writer connection (which may
     * read every authority store's {@code STREAM.INFO}).
     */
    static WriteBudget forPlane(ai.cotal.auth.AuthPlaneOptions options, io.nats.client.Connection writer,
            AuthMetrics metrics) {
        String space = options.space();
        Map<String, io.nats.client.Connection> watched = new LinkedHashMap<>();
        for (String kind : List.of("auth", "issued", "accepted")) {
            watched.put(StoreNames.bucketStream(kind, space), writer);
        }
        return new WriteBudget(options.writeBudgets(), options.clock(), new StorePressure(watched, options.clock()), stores(space),
                metrics);
    }

    /** The store-pressure signal this budget asks (the plane's health reads it), or null. */
    StorePressure pressure() {
        return pressure;
    }

    /**
     * A callout replica's budget: the default limits, counted on its own, with the pressure of
     * the issued and accepted stores read on its issuer connection.
     */
    public static WriteBudget forReplica(String space, io.nats.client.Connection issuer, Clock clock) {
        Map<String, io.nats.client.Connection> watched = new LinkedHashMap<>();
        for (String kind : List.of("issued", "accepted")) {
            watched.put(StoreNames.bucketStream(kind, space), issuer);
        }
        return new WriteBudget(ai.cotal.auth.WriteBudgets.defaults(), clock, new StorePressure(watched, clock), stores(space));
    }

    private static Map<Kind, List<String>> stores(String space) {
        List<String> auth = List.of(StoreNames.bucketStream("auth", space));
        return Map.of(Kind.MINT, auth, Kind.ENDPOINT, auth, Kind.ISSUANCE,
                List.of(StoreNames.bucketStream("issued", space), StoreNames.bucketStream("accepted", space)));
    }

    /**
     * Admits one write of {@code kind} for {@code owner.actor}, or refuses it
     * ({@code resource-exhausted}, naming the limit or the store) without counting it.
     */
    public void charge(Kind kind, String owner, String actor) {
        if (pressure != null) {
            try {
                pressure.requireRoom(stores.getOrDefault(kind, List.of()), kind.refusedWrites);
            } catch (CotalException e) {
                metrics.budgetRefused(tag(kind), AuthMetrics.BudgetLimit.STORE_PRESSURE);
                throw e;
            }
        }
        long now = clock.millis();
        int principalLimit = perPrincipal(kind);
        int spaceLimit = perSpace(kind);
        synchronized (this) {
            Window mine = principals.computeIfAbsent(kind.name() + " " + owner + "." + actor, k -> new Window());
            Window all = space.get(kind);
            if (mine.count(now) >= principalLimit) {
                metrics.budgetRefused(tag(kind), AuthMetrics.BudgetLimit.PRINCIPAL);
                throw refused(kind, "this principal", principalLimit, "per principal");
            }
            if (all.count(now) >= spaceLimit) {
                metrics.budgetRefused(tag(kind), AuthMetrics.BudgetLimit.SPACE);
                throw refused(kind, "this space", spaceLimit, "per space");
            }
            mine.add(now);
            all.add(now);
        }
    }

    /** The kind's tag value: {@code mint}, {@code issuance}, {@code endpoint}. */
    private static String tag(Kind kind) {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    private int perPrincipal(Kind kind) {
        return switch (kind) {
            case MINT -> limits.mintsPerPrincipal();
            case ISSUANCE -> limits.issuancesPerPrincipal();
            case ENDPOINT -> limits.endpointWritesPerPrincipal();
        };
    }

    private int perSpace(Kind kind) {
        return switch (kind) {
            case MINT -> limits.mintsPerSpace();
            case ISSUANCE -> limits.issuancesPerSpace();
            case ENDPOINT -> limits.endpointWritesPerSpace();
        };
    }

    /** How many principal windows are held (tests: the memory bound). */
    synchronized int principalsHeld() {
        return principals.size();
    }

    private static CotalException refused(Kind kind, String who, int limit, String per) {
        return new CotalException(ErrorCode.RESOURCE_EXHAUSTED, kind.budget + ": " + who + " made " + limit + " "
                + kind.made + " in the last minute (limit " + limit + " " + per + " per minute); " + kind.retry);
    }

    /** Admitted events of the last minute, oldest first; holds at most the limit (refusals are not added). */
    private static final class Window {
        private final ArrayDeque<Long> events = new ArrayDeque<>();

        int count(long now) {
            while (!events.isEmpty() && events.peekFirst() <= now - MINUTE_MILLIS) {
                events.removeFirst();
            }
            return events.size();
        }

        void add(long now) {
            events.addLast(now);
        }
    }
}
