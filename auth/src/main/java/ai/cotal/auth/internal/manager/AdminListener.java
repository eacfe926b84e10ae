package ai.cotal.auth.internal.manager;

import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auth admin listener (SPEC §14.1), the NATS retire rail of a manager: requests on
 * {@code P.auth.admin.<iid>.retire-managed}, which only the standing service credential of manager
 * instance {@code <iid>} may publish (the broker's permission is the authentication), retire one
 * managed lifecycle of the owner the instance's spec names, while that instance is a candidate.
 * One dispatcher thread takes the requests one at a time, with bounded pending messages. Owns its
 * connection. Thread-safe.
 */
public final class AdminListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminListener.class);
    /** The pending bound of the subscription: over it jnats drops the request and the requester times out. */
    static final int PENDING_MESSAGES = 64;
    static final long PENDING_BYTES = 1L << 20;
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

    private AdminListener(AuthorityConnection connection, String space, ManagerGates gates, ServingRecords records,
            Lifecycles lifecycles, Runnable refuseIfUnavailable) {
        this.connection = connection;
        this.gates = gates;
        this.records = records;
        this.lifecycles = lifecycles;
        this.refuseIfUnavailable = refuseIfUnavailable;
        String wildcard = AuthorityRole.retireManagedSubject(space, "*");
        this.subjectStem = wildcard.substring(0, wildcard.length() - ("*" + SUFFIX).length());
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
            Dispatcher dispatcher = connection.connection().createDispatcher(listener::onRequest);
            dispatcher.subscribe(AuthorityRole.retireManagedSubject(space, "*"));
            dispatcher.setPendingLimits(PENDING_MESSAGES, PENDING_BYTES);
            connection.connection().flush(Duration.ofSeconds(5));
            return listener;
        } catch (TimeoutException | RuntimeException e) {
            connection.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, "the auth admin listener of space \"" + space
                    + "\" could not subscribe; retry", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connection.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while opening the auth admin listener", e);
        }
    }

    private void onRequest(Message message) {
        String replyTo = message.getReplyTo();
        if (replyTo == null || replyTo.isEmpty()) {
            return; // nobody to answer
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("v", 1);
        try {
            answer.putAll(retire(message.getSubject(), message.getData()));
        } catch (CotalException e) {
            answer.put("error", Map.of("code", e.code().wire(), "message", e.getMessage()));
        } catch (RuntimeException e) {
            LOG.warn("auth-admin: a retire request failed inside the plane ({})", e.getClass().getName());
            answer.put("error", Map.of("code", ErrorCode.INTERNAL.wire(), "message",
                    "the retirement failed inside the plane; see its log"));
        }
        try {
            connection.connection().publish(replyTo, ClosedJson.write(ClosedJson.cotal(), answer));
        } catch (IllegalStateException e) {
            LOG.debug("auth-admin: the reply was not sent: the listener is closing");
        }
    }

    /** The checks of SPEC §14.1 in order, then {@code retireManaged}; answers the reply's fields. */
    private Map<String, Object> retire(String subject, byte[] body) {
        String instanceId = subject.startsWith(subjectStem) && subject.endsWith(SUFFIX)
                ? subject.substring(subjectStem.length(), subject.length() - SUFFIX.length()) : "";
        ManagerGates.checkInstance(instanceId);
        Request request = ClosedJson.read(ClosedJson.cotal(), body == null ? new byte[0] : body, Request.class, "body");
        if (request.v() == null || request.v() != 1) {
            throw CotalException.badRequest("v", "must be 1; the body is {v: 1, actor, lifecycleUid}");
        }
        // the owner is the spec's (grammatical when present): the rest is checked now
        Lifecycles.checkActorLifecycle(request.actor(), request.lifecycleUid());
        refuseIfUnavailable.run();
        // no spec: no owner, and the verdict answers no-gate, frozen or no-spec before it compares one
        String owner = records.managerSpec(instanceId).map(spec -> spec.value().owner()).orElse(null);
        ManagerAuthority.Verdict verdict = gates.verdict(owner, instanceId,
                records.gate(ManagerGates.ENDPOINT, instanceId));
        if (verdict != ManagerAuthority.Verdict.CANDIDATE) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                    + " is not a candidate (" + verdict.wire() + ")");
        }
        Lifecycles.Retirement result = lifecycles.retireManaged(owner, request.actor(), request.lifecycleUid());
        return result.wire();
    }

    /** Closes the connection: no request is taken after this. */
    @Override
    public void close() {
        connection.close();
    }
}
