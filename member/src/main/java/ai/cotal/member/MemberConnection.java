package ai.cotal.member;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A member joined to a space by {@link CotalMember#connect}: one jnats connection at a time, its
 * bearer renewed before it expires by opening the next connection, moving every subscription made
 * through {@link #subscribe} to it, and only then letting the previous one go (SPEC §13.24). A
 * message published during that one round trip may be delivered twice; none is lost.
 *
 * <p>Thread-safe. {@link #toString()} names the space, owner and actor, never a token.
 */
public final class MemberConnection implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MemberConnection.class.getName());
    private static final int MAX_CONTROL_LINE = 65_536;
    private static final Duration DRAIN = Duration.ofSeconds(5);

    private final JoinOptions options;
    private final JoinService service;
    private final JoinService.Bundle bundle;
    private final ScheduledExecutorService renewer;
    private final Object lock = new Object();
    private final Map<Managed, Subscription> subscriptions = new IdentityHashMap<>();
    private final AtomicInteger renewals = new AtomicInteger();
    private volatile Connection current;
    private volatile Dispatcher dispatcher;
    private volatile JoinService.Bearer bearer;
    private volatile MemberException lastFailure;
    private volatile boolean closed;

    private MemberConnection(JoinOptions options, JoinService service, JoinService.Bundle bundle) {
        this.options = options;
        this.service = service;
        this.bundle = bundle;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cotal-member-renew");
            t.setDaemon(true);
            return t;
        });
    }

    static MemberConnection open(JoinOptions options) {
        JoinService service = new JoinService(options.joinUrl(), options.httpTimeout());
        MemberConnection member = new MemberConnection(options, service, service.bundle());
        try {
            JoinService.Bearer first = service.exchange(options.idTokens().get(), options.actor());
            member.bearer = first;
            member.current = member.dial(first);
            member.dispatcher = member.current.createDispatcher();
            member.schedule(first);
            return member;
        } catch (RuntimeException e) {
            member.renewer.shutdownNow();
            closeQuietly(member.current);
            throw e;
        }
    }

    private Connection dial(JoinService.Bearer with) {
        String nonce = InboxTag.fresh(with.owner(), options.actor());
        char[] token = with.token().toCharArray();
        Options.Builder builder = new Options.Builder();
        options.jnats().accept(builder);
        builder.server(bundle.server())
                .authHandler(Nats.staticCredentials(bundle.sentinelCreds().getBytes(StandardCharsets.UTF_8)))
                .tokenSupplier(() -> token.clone()).connectionName(nonce).inboxPrefix("_INBOX_" + nonce)
                .maxControlLine(MAX_CONTROL_LINE).maxReconnects(-1);
        try {
            return Nats.connect(builder.build());
        } catch (IOException e) {
            throw new MemberException("unavailable", "the broker at " + bundle.server() + " refused or did not answer"
                    + " the connect: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemberException("unavailable", "interrupted while connecting", e);
        }
    }

    private void schedule(JoinService.Bearer of) {
        Duration life = Duration.between(Instant.now(), of.exp());
        Duration margin = min(options.renewMargin() != null ? options.renewMargin()
                : min(Duration.ofSeconds(60), life.dividedBy(4)), life.dividedBy(2));
        // at least a second apart, whatever the margin or the clocks say: a renewal never spins
        long delay = Math.max(1_000, life.minus(margin).toMillis());
        try {
            renewer.schedule(() -> renew(Duration.ofSeconds(1)), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed meanwhile: nothing more to renew
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private void renew(Duration backoff) {
        if (closed) {
            return;
        }
        Connection next = null;
        JoinService.Bearer fresh;
        Connection previous;
        Dispatcher previousDispatcher;
        List<Subscription> retired = new ArrayList<>();
        try {
            fresh = service.exchange(options.idTokens().get(), options.actor());
            next = dial(fresh);
            Dispatcher nextDispatcher = next.createDispatcher();
            synchronized (lock) {
                if (closed) {
                    closeQuietly(next);
                    return;
                }
                Map<Managed, Subscription> moved = new IdentityHashMap<>();
                for (Managed managed : subscriptions.keySet()) {
                    moved.put(managed, nextDispatcher.subscribe(managed.subject, managed));
                }
                next.flush(options.httpTimeout()); // the broker holds every subscription on the next connection
                retired.addAll(subscriptions.values()); // only now: a failure above leaves the map as it was
                subscriptions.putAll(moved);
                previous = current;
                previousDispatcher = dispatcher;
                current = next;
                dispatcher = nextDispatcher;
                bearer = fresh;
            }
        } catch (MemberException e) {
            failed(e, backoff, next);
            return;
        } catch (TimeoutException | InterruptedException | RuntimeException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            failed(new MemberException("unavailable", "renewal: " + e.getClass().getSimpleName(), e), backoff, next);
            return;
        }
        renewals.incrementAndGet(); // the renewal landed, whatever the previous connection does now
        lastFailure = null;
        schedule(fresh);
        retire(previous, previousDispatcher, retired);
    }

    /** Lets the previous connection go: its subscriptions first, then a drain; closed outright if anything fails. */
    private void retire(Connection previous, Dispatcher previousDispatcher, List<Subscription> retired) {
        try {
            for (Subscription subscription : retired) {
                previousDispatcher.unsubscribe(subscription);
            }
            previous.flush(options.httpTimeout());
            previous.drain(DRAIN);
        } catch (TimeoutException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "the previous connection did not drain; closing it", e);
            closeQuietly(previous);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(previous);
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing a connection failed", e);
        }
    }

    private void failed(MemberException e, Duration backoff, Connection next) {
        lastFailure = e;
        LOG.log(System.Logger.Level.WARNING, "member " + options.actor() + ": renewal failed (" + e.code() + ": "
                + e.getMessage() + "); retrying in " + backoff.toSeconds() + " s");
        if (next != null && next != current) {
            closeQuietly(next);
        }
        if (!closed) {
            Duration again = min(backoff.multipliedBy(2), Duration.ofSeconds(30));
            try {
                renewer.schedule(() -> renew(again), backoff.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException rejected) {
                // closed meanwhile
            }
        }
    }

    /** The current jnats connection; it is replaced at each renewal (subscriptions made on it directly are not carried over). */
    public Connection connection() {
        return current;
    }

    /**
     * Subscribes {@code handler} to {@code subject}; the subscription is carried across every
     * renewal. During a renewal's round trip the handler may be called from the old and the new
     * connection's dispatcher threads at once, and a message published then may arrive twice.
     */
    public MemberSubscription subscribe(String subject, MessageHandler handler) {
        if (subject == null || subject.isBlank()) {
            throw MemberException.badRequest("subject", "is required");
        }
        if (handler == null) {
            throw MemberException.badRequest("handler", "is required");
        }
        Managed managed = new Managed(subject, handler);
        synchronized (lock) {
            if (closed) {
                throw new MemberException("unavailable", "the member connection is closed");
            }
            subscriptions.put(managed, dispatcher.subscribe(subject, managed));
        }
        return managed;
    }

    /** Publishes {@code data} on {@code subject} through the current connection. */
    public void publish(String subject, byte[] data) {
        current.publish(subject, data);
    }

    /**
     * Sends a request and waits at most {@code timeout} for its reply.
     *
     * @throws MemberException {@code unavailable} when no reply came in time
     */
    public Message request(String subject, byte[] data, Duration timeout) {
        try {
            Message reply = current.request(subject, data, timeout);
            if (reply == null) {
                throw new MemberException("unavailable", "no reply on " + subject + " within " + timeout.toMillis() + " ms");
            }
            return reply;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemberException("unavailable", "interrupted waiting for a reply on " + subject, e);
        }
    }

    /** The space joined. */
    public String space() {
        return bundle.space();
    }

    /** The owner the service derived for the ID token's subject. */
    public String owner() {
        return bearer.owner();
    }

    /** The actor joined as. */
    public String actor() {
        return options.actor();
    }

    /** When the current bearer expires (a renewal starts before). */
    public Instant bearerExpiresAt() {
        return bearer.exp();
    }

    /** How many renewals have landed. */
    public int renewals() {
        return renewals.get();
    }

    /** The last renewal's refusal while it is being retried, or null when the last one landed. */
    public MemberException lastRenewalFailure() {
        return lastFailure;
    }

    /** Stops renewing and drains the current connection; idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            subscriptions.clear();
        }
        renewer.shutdownNow();
        try {
            current.drain(DRAIN).get(DRAIN.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(current);
        }
    }

    @Override
    public String toString() {
        return "MemberConnection[space " + bundle.space() + ", owner " + bearer.owner() + ", actor " + options.actor() + "]";
    }

    /** A subscription the member carries across renewals. */
    private final class Managed implements MemberSubscription, MessageHandler {
        final String subject;
        final MessageHandler handler;

        Managed(String subject, MessageHandler handler) {
            this.subject = subject;
            this.handler = handler;
        }

        @Override
        public void onMessage(Message message) throws InterruptedException {
            handler.onMessage(message);
        }

        @Override
        public String subject() {
            return subject;
        }

        @Override
        public void unsubscribe() {
            synchronized (lock) {
                Subscription s = subscriptions.remove(this);
                if (s != null && !closed) {
                    dispatcher.unsubscribe(s);
                }
            }
        }
    }
}
