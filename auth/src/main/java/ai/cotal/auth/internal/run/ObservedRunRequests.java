package ai.cotal.auth.internal.run;

import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.internal.run.RunDocuments.Observed;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.trust.SpaceName;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The observed served run requests of SPEC §14.8: read-only subscriptions, on the plane's issuer
 * connection, to the served run-request subjects of every owner; an insertion-ordered table of
 * what each request's envelope asked, kept {@link #WINDOW} and at most
 * {@link ManagerRuns#MAX_OBSERVED} entries; and {@link #take}: flush, then get and delete, then the
 * expiry check.
 *
 * <p>The subscriptions are synchronous and drained only under this object's lock: by a periodic
 * drain (every {@link #DRAIN_EVERY}) and by {@link #take} right after its flush. A flush returns
 * once the connection has read everything its server queued to it before, so those messages are
 * in the subscriptions' queues, and the take drains them before it looks: no message is ever
 * between a queue and the table while a take looks (a dispatcher thread could hold one). Thread-safe.
 */
public final class ObservedRunRequests implements AutoCloseable {
    /** {@code OBSERVED_RUN_REQUEST_WINDOW}: how long an observed request can still be forwarded. */
    public static final Duration WINDOW = Duration.ofMinutes(5);
    /**
     * The subjects the issuer connection of {@code space} subscribes to:
     * {@code P.svc.manager.*.run.<op>.*.*} per op, {@code P} the space's subject prefix.
     */
    public static List<String> subjects(String space) {
        String p = SpaceName.subjectPrefix(space);
        return List.of(p + ".svc.manager.*.run.start.*.*", p + ".svc.manager.*.run.resume.*.*",
                p + ".svc.manager.*.run.answer.*.*");
    }
    /** How often queued observations are moved into the table when no take does it. */
    public static final Duration DRAIN_EVERY = Duration.ofMillis(20);
    private static final Duration FLUSH = Duration.ofSeconds(5);
    private static final Duration NO_WAIT = Duration.ofNanos(1);

    private record Entry(long expires, Observed request) {
    }

    private final Connection connection;
    private final String prefix;
    private final Clock clock;
    private final int maxEntries;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private final LinkedHashMap<String, Entry> table = new LinkedHashMap<>();
    private final ScheduledFuture<?> drains;

    /**
     * Subscribes on {@code connection} (the issuer of {@code space}) to {@link #subjects}; the
     * subscriptions are on the server once this returns.
     */
    public ObservedRunRequests(Connection connection, String space, Clock clock, int maxEntries,
            ScheduledExecutorService scheduler) {
        this.connection = connection;
        this.prefix = SpaceName.subjectPrefix(space);
        this.clock = clock;
        this.maxEntries = maxEntries;
        for (String subject : subjects(space)) {
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
            // a closed connection: the next take refuses unavailable at its flush
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

    /** One message, under the lock: prune from the head, parse, delete and re-insert. */
    private void observe(Message message) {
        long now = clock.millis();
        for (Iterator<Entry> head = table.values().iterator(); head.hasNext();) {
            if (head.next().expires() > now) {
                break; // expiry order: the first live one ends the prune
            }
            head.remove();
        }
        Optional<Observed> request = RunDocuments.observed(prefix, message.getSubject(), message.getData());
        if (request.isEmpty()) {
            return; // what does not parse is ignored
        }
        table.remove(message.getSubject()); // re-inserting keeps the table in expiry order
        table.put(message.getSubject(), new Entry(now + WINDOW.toMillis(), request.get()));
        if (table.size() > maxEntries) {
            Iterator<Map.Entry<String, Entry>> oldest = table.entrySet().iterator();
            oldest.next();
            oldest.remove(); // fail closed: a forward of a dropped request is refused
        }
    }

    /**
     * {@code takeObserved}: flushes the connection (everything the server queued to it before the
     * flush has been read), drains it into the table, then gets and deletes the observation of
     * {@code subject}; empty when there is none or it expired.
     *
     * @throws CotalException {@code unavailable} when the flush fails
     */
    public Optional<Observed> take(String subject) {
        flush();
        Entry entry;
        synchronized (this) {
            drain();
            entry = table.remove(subject);
        }
        return entry != null && entry.expires() > clock.millis() ? Optional.of(entry.request()) : Optional.empty();
    }

    /** The number of entries held now (after moving what is queued into the table). */
    public synchronized int size() {
        drain();
        return table.size();
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
