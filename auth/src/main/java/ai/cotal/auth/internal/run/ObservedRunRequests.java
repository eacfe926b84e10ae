package ai.cotal.auth.internal.run;

import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.run.RunDocuments.Observed;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The observed served run requests of SPEC §14.8: read-only subscriptions, on the plane's issuer
 * connection, to the served resume and answer subjects of every owner; per owner an
 * insertion-ordered table of what each request's envelope asked, kept {@link #WINDOW}, within the
 * {@link Bounds} (per caller, per owner, in all); {@link #peek} (flush, then look) and
 * {@link #take} (delete exactly what a peek saw, once), and {@link #restore} when the attempt that
 * took it failed.
 *
 * <p>The subscriptions are synchronous and drained only under this object's lock: by a periodic
 * drain (every {@link #DRAIN_EVERY}) and by {@link #peek} right after its flush. A flush returns
 * once the connection has read everything its server queued to it before, so those messages are
 * in the subscriptions' queues, and the peek drains them before it looks: no message is ever
 * between a queue and the table while a peek looks (a dispatcher thread could hold one). Thread-safe.
 */
public final class ObservedRunRequests implements AutoCloseable {
    /** {@code OBSERVED_RUN_REQUEST_WINDOW}: how long an observed request can still be forwarded. */
    public static final Duration WINDOW = Duration.ofMinutes(5);
    /** How often queued observations are moved into the table when no peek does it. */
    public static final Duration DRAIN_EVERY = Duration.ofMillis(20);
    private static final Duration FLUSH = Duration.ofSeconds(5);
    private static final Duration NO_WAIT = Duration.ofNanos(1);

    /**
     * How many observations are kept: at most {@code perCaller} of one caller (the accepted token
     * the subject ends in), {@code perOwner} of one owner, {@code total} in all. Past a bound the
     * oldest of that caller, of that owner, or of the owner holding the most is dropped.
     */
    public record Bounds(int total, int perOwner, int perCaller) {
        /** The plane's: {@link ManagerRuns#MAX_OBSERVED} in all, 1,024 per owner, 64 per caller. */
        public static final Bounds PLANE = new Bounds(ManagerRuns.MAX_OBSERVED, 1_024, 64);
    }

    /** One observation as a {@link #peek} saw it: what {@link #take} deletes, only if it is still this one. */
    public record Seen(String subject, long expires, Observed request) {
    }

    private final Connection connection;
    private final String prefix;
    private final Clock clock;
    private final Bounds bounds;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private final Map<String, LinkedHashMap<String, Seen>> owners = new HashMap<>();
    private final Map<String, LinkedHashSet<String>> callers = new HashMap<>(); // each caller's subjects, oldest first
    private int size;
    private final ScheduledFuture<?> drains;

    /**
     * Subscribes on {@code connection} (the issuer of {@code space}) to {@link #subjects}; the
     * subscriptions are on the server once this returns.
     */
    public ObservedRunRequests(Connection connection, String space, Clock clock, Bounds bounds,
            ScheduledExecutorService scheduler) {
        this.connection = connection;
        this.prefix = new SpaceName(space).subjectPrefix();
        this.clock = clock;
        this.bounds = bounds;
        for (String subject : ai.cotal.core.internal.grants.AuthorityGrants.observedRunRequests(space)) {
            subscriptions.add(connection.subscribe(subject));
        }
        flush();
        this.drains = scheduler.scheduleWithFixedDelay(this::drainQuietly, DRAIN_EVERY.toMillis(), DRAIN_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void drainQuietly() {
        try {
            drain();
        } catch (RuntimeException e) {
            // a closed connection: the next peek refuses unavailable at its flush
        }
    }

    /** Moves every queued message into the table; the caller holds no lock (this takes it). */
    private synchronized void drain() {
        for (Subscription subscription : subscriptions) {
            while (true) {
                Message message;
                try {
                    message = subscription.nextMessage(NO_WAIT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (message == null) {
                    break;
                }
                observe(message);
            }
        }
    }

    /**
     * One message, under the lock: parse (what does not parse, or could never be forwarded, is
     * ignored), prune the owner's expired head, delete and re-insert (which keeps each owner's
     * table in expiry order), then the bounds: the caller's, the owner's, the total.
     */
    private void observe(Message message) {
        Optional<Observed> parsed = RunDocuments.observed(prefix, message.getSubject(), message.getData());
        if (parsed.isEmpty()) {
            return;
        }
        Observed request = parsed.get();
        long now = clock.millis();
        LinkedHashMap<String, Seen> before = owners.get(request.owner());
        if (before != null) {
            prune(before, now);
            remove(before, message.getSubject());
        }
        LinkedHashMap<String, Seen> own = owners.computeIfAbsent(request.owner(), o -> new LinkedHashMap<>());
        own.put(message.getSubject(), new Seen(message.getSubject(), now + WINDOW.toMillis(), request));
        size++;
        LinkedHashSet<String> mine = callers.computeIfAbsent(request.caller(), c -> new LinkedHashSet<>());
        mine.add(message.getSubject());
        if (mine.size() > bounds.perCaller()) {
            remove(own, mine.iterator().next()); // the caller's oldest: one caller evicts only its own
        }
        if (own.size() > bounds.perOwner()) {
            remove(own, own.keySet().iterator().next()); // the owner's oldest: one owner evicts only its own
        }
        if (size > bounds.total()) {
            List.copyOf(owners.values()).forEach(table -> prune(table, now));
            if (size > bounds.total()) {
                LinkedHashMap<String, Seen> largest = owners.values().stream()
                        .max(java.util.Comparator.comparingInt(Map::size)).orElseThrow();
                remove(largest, largest.keySet().iterator().next()); // fail closed: its forward is refused
            }
        }
    }

    /** Drops expired entries from the head of one owner's table, stopping at the first live one. */
    private void prune(LinkedHashMap<String, Seen> table, long now) {
        while (!table.isEmpty()) {
            Seen head = table.values().iterator().next();
            if (head.expires() > now) {
                return;
            }
            remove(table, head.subject());
        }
    }

    /** Deletes one entry; an owner's table that empties goes too. */
    private void remove(Map<String, Seen> table, String subject) {
        Seen gone = table.remove(subject);
        if (gone != null) {
            size--;
            LinkedHashSet<String> mine = callers.get(gone.request().caller());
            mine.remove(subject);
            if (mine.isEmpty()) {
                callers.remove(gone.request().caller());
            }
            if (table.isEmpty()) {
                owners.remove(gone.request().owner(), table);
            }
        }
    }

    private Optional<LinkedHashMap<String, Seen>> tableOf(String subject) {
        String stem = prefix + ".svc.manager.";
        if (!subject.startsWith(stem) || subject.indexOf('.', stem.length()) < 0) {
            return Optional.empty();
        }
        return Optional.ofNullable(owners.get(subject.substring(stem.length(), subject.indexOf('.', stem.length()))));
    }

    /**
     * {@code takeObserved}'s look: flushes the connection (everything the server queued to it
     * before the flush has been read), drains it into the table, then answers the observation of
     * {@code subject}; empty when there is none or it expired. Nothing is deleted.
     *
     * @throws CotalException {@code unavailable} when the flush fails
     */
    public Optional<Seen> peek(String subject) {
        flush();
        Seen seen;
        synchronized (this) {
            drain();
            seen = tableOf(subject).map(table -> table.get(subject)).orElse(null);
        }
        return seen != null && seen.expires() > clock.millis() ? Optional.of(seen) : Optional.empty();
    }

    /**
     * Deletes the observation {@code seen} if it is still the one held for its subject and has not
     * expired; false when another take (or a new publish of the subject) came first.
     */
    public synchronized boolean take(Seen seen) {
        Optional<LinkedHashMap<String, Seen>> table = tableOf(seen.subject());
        if (table.isEmpty() || table.get().get(seen.subject()) != seen || seen.expires() <= clock.millis()) {
            return false;
        }
        remove(table.get(), seen.subject());
        return true;
    }

    /**
     * Puts back an observation a failed attempt took, with its own expiry, unless its subject was
     * observed again since, it expired, or one of its bounds is full (then it stays gone: fail
     * closed). The peek checks the expiry, so its place in the owner's table need not follow it.
     */
    public synchronized void restore(Seen seen) {
        LinkedHashMap<String, Seen> own = owners.computeIfAbsent(seen.request().owner(), o -> new LinkedHashMap<>());
        if (!own.containsKey(seen.subject()) && seen.expires() > clock.millis() && size < bounds.total()
                && own.size() < bounds.perOwner()
                && (callers.containsKey(seen.request().caller()) ? callers.get(seen.request().caller()).size() : 0)
                        < bounds.perCaller()) {
            own.put(seen.subject(), seen);
            size++;
            callers.computeIfAbsent(seen.request().caller(), c -> new LinkedHashSet<>()).add(seen.subject());
        } else if (own.isEmpty()) {
            owners.remove(seen.request().owner(), own);
        }
    }

    /** The number of entries held now (after moving what is queued into the table). */
    public synchronized int size() {
        drain();
        return size;
    }

    private void flush() {
        try {
            connection.flush(FLUSH);
        } catch (TimeoutException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the plane could not flush its issuer connection to read the"
                    + " observed run requests; retry", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while reading the observed run requests", e);
        }
    }

    @Override
    public void close() {
        drains.cancel(false);
        for (Subscription subscription : subscriptions) {
            try {
                subscription.unsubscribe();
            } catch (IllegalStateException e) {
                // the connection closed first: the subscription went with it
            }
        }
    }
}
