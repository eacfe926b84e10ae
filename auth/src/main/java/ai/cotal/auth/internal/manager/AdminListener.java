package ai.cotal.auth.internal.manager;

import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.flow.FairQueue;
import ai.cotal.auth.internal.flow.FairWorkers;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auth admin listener (SPEC §14.1), the NATS retire rail of a manager: requests on
 * {@code P.auth.admin.<iid>.retire-managed}, which only the standing service credential of manager
 * instance {@code <iid>} may publish (the broker's permission is the authentication), retire one
 * managed lifecycle of the owner the instance's spec names, while that instance is a candidate.
 * The dispatcher thread only sorts each request by its instance into a bounded {@link FairQueue};
 * one worker answers them one at a time, round-robin over the instances, so an instance that
 * floods its own subject delays only its own requests. Owns its connection. Thread-safe.
 */
public final class AdminListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminListener.class);
    /**
     * The pending bound of the subscription (the dispatcher only sorts, so it rarely holds more
     * than a few): over it jnats drops the request and the requester times out.
     */
    static final int PENDING_MESSAGES = 4096;
    static final long PENDING_BYTES = 4L << 20;
    /** Requests waiting for the worker, over all instances; full, the busiest instance's oldest is dropped. */
    static final int WAITING = 256;
    /** A request body is {@code {v, actor, lifecycleUid}}: a longer one is refused before it waits. */
    static final int MAX_BODY = 1024;
    private static final String SUFFIX = ".retire-managed";

    /** The request body: closed, {@code {v: 1, actor, lifecycleUid}}; the owner is the spec's. */
    record Request(Integer v, String actor, String lifecycleUid) {
    }

    private final AuthorityConnection connection;
    private final ManagerGates gates;
    private final ServingRecords records;
    private final Lifecycles lifecycles;
    private final Runnable refuseIfUnavailable;
    private final String subjectStem;
    private final FairWorkers<Message> worker;

    private AdminListener(AuthorityConnection connection, String space, ManagerGates gates, ServingRecords records,
            Lifecycles lifecycles, Runnable refuseIfUnavailable) {
        this.connection = connection;
        this.gates = gates;
        this.records = records;
        this.lifecycles = lifecycles;
        this.refuseIfUnavailable = refuseIfUnavailable;
        String wildcard = AuthorityRole.retireManagedSubject(space, "*");
        this.subjectStem = wildcard.substring(0, wildcard.length() - ("*" + SUFFIX).length());
        this.worker = new FairWorkers<>("cotal-auth-admin", 1, List.of(new FairWorkers.Lane(WAITING, false, 1)),
                this::answer, dropped -> LOG.debug("auth-admin: a request was dropped: its instance has the most waiting"));
    }

    /**
     * Subscribes the retire subjects on {@code connection} (an {@link AuthorityRole#ADMIN}
     * connection) and waits until the broker has the subscription; the listener owns the
     * connection from here, also when this throws.
     */
    public static AdminListener open(AuthorityConnection connection, String space, ManagerGates gates,
            ServingRecords records, Lifecycles lifecycles, Runnable refuseIfUnavailable) {
        AdminListener listener = new AdminListener(connection, space, gates, records, lifecycles, refuseIfUnavailable);
        try {
            Dispatcher dispatcher = connection.connection().createDispatcher(listener::sort);
            dispatcher.subscribe(AuthorityRole.retireManagedSubject(space, "*"));
            dispatcher.setPendingLimits(PENDING_MESSAGES, PENDING_BYTES);
            connection.connection().flush(Duration.ofSeconds(5));
            return listener;
        } catch (TimeoutException | RuntimeException e) {
            listener.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, "the auth admin listener of space \"" + space
                    + "\" could not subscribe; retry", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            listener.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while opening the auth admin listener", e);
        }
    }

    /** The dispatcher's part: a request waits under its instance (an oversized body is answered at once). */
    private void sort(Message message) {
        String replyTo = message.getReplyTo();
        if (replyTo == null || replyTo.isEmpty()) {
            return; // nobody to answer
        }
        if (message.getData() != null && message.getData().length > MAX_BODY) {
            reply(replyTo, error(CotalException.badRequest("body", "at most " + MAX_BODY + " bytes")));
            return;
        }
        worker.offer(0, instanceOf(message.getSubject()), message);
    }

    /** The worker's part: the checks and the retirement, answered. */
    private void answer(Message message) {
        Map<String, Object> answer;
        try {
            answer = new LinkedHashMap<>();
            answer.put("v", 1);
            answer.putAll(retire(message.getSubject(), message.getData()));
        } catch (CotalException e) {
            answer = error(e);
        } catch (RuntimeException e) {
            LOG.warn("auth-admin: a retire request failed inside the plane ({})", e.getClass().getName());
            answer = error(new CotalException(ErrorCode.INTERNAL, "the retirement failed inside the plane; see its log"));
        }
        reply(message.getReplyTo(), answer);
    }

    private static Map<String, Object> error(CotalException e) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("v", 1);
        answer.put("error", Map.of("code", e.code().wire(), "message", e.getMessage()));
        return answer;
    }

    private void reply(String replyTo, Map<String, Object> answer) {
        try {
            connection.connection().publish(replyTo, ClosedJson.write(ClosedJson.cotal(), answer));
        } catch (IllegalStateException e) {
            LOG.debug("auth-admin: the reply was not sent: the listener is closing");
        }
    }

    /** The {@code <iid>} of a retire subject, unchecked; empty when the subject is not one. */
    private String instanceOf(String subject) {
        return subject.startsWith(subjectStem) && subject.endsWith(SUFFIX)
                && subject.length() > subjectStem.length() + SUFFIX.length()
                ? subject.substring(subjectStem.length(), subject.length() - SUFFIX.length()) : "";
    }

    /** The checks of SPEC §14.1 in order, then {@code retireManaged}; answers the reply's fields. */
    private Map<String, Object> retire(String subject, byte[] body) {
        String instanceId = instanceOf(subject);
        ManagerGates.checkInstance(instanceId);
        Request request = ClosedJson.read(ClosedJson.cotal(), body == null ? new byte[0] : body, Request.class, "body");
        if (request.v() == null || request.v() != 1) {
            throw CotalException.badRequest("v", "must be 1; the body is {v: 1, actor, lifecycleUid}");
        }
        // the owner is the spec's (grammatical when present): the rest is checked now
        Actor actor = Actor.of(request.actor(), "actor");
        LifecycleUid uid = LifecycleUid.of(request.lifecycleUid(), "lifecycleUid");
        refuseIfUnavailable.run();
        // no spec: no owner, and the verdict answers no-gate, frozen or no-spec before it compares one
        String owner = records.managerSpec(instanceId).map(spec -> spec.value().owner()).orElse(null);
        ManagerAuthority.Verdict verdict = gates.verdict(owner, instanceId,
                records.gate(ManagerGates.ENDPOINT, instanceId));
        if (verdict != ManagerAuthority.Verdict.CANDIDATE) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                    + " is not a candidate (" + verdict.wire() + ")");
        }
        Lifecycles.Retirement result = lifecycles.retireManaged(new Principal(Owner.of(owner, "owner"), actor), uid);
        return result.wire();
    }

    /** Stops the worker and closes the connection: no request is taken after this. */
    @Override
    public void close() {
        worker.close();
        connection.close();
    }
}
