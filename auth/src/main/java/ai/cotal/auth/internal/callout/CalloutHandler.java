package ai.cotal.auth.internal.callout;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.internal.metrics.AuthMetrics.CalloutOutcome;
import ai.cotal.auth.internal.metrics.AuthMetrics.CalloutReason;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.jwt.AuthorizationRequestClaim;
import ai.cotal.core.jwt.AuthorizationResponseClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One authorization request, start to end (SPEC §13.16): open the sealed request, verify it came
 * from an expected server, validate the bearer, ask the plane, check the inbox nonce is the
 * principal's ({@link InboxNonce}), compute the permissions, mint the user, answer sealed. A request
 * that fails before the bearer step gets no answer at all (the server denies on timeout); a refused
 * connect gets a signed, sealed error whose text passes {@link CalloutRefusal} (nats-server logs it:
 * no paths, no exception text). Thread-safe.
 */
final class CalloutHandler {
    /** The header carrying the server's curve key. */
    public static final String XKEY_HEADER = "Nats-Server-Xkey";
    private static final Logger LOG = LoggerFactory.getLogger(CalloutHandler.class);

    private final CalloutOptions options;
    private final ClaimVerifier verifier;
    private final AuthMetrics metrics;

    public CalloutHandler(CalloutOptions options) {
        this.options = options;
        this.verifier = new ClaimVerifier(options.clock());
        this.metrics = options.metrics();
    }

    /** The check a refused connect was at when it was refused (the metrics' reason, SPEC §13.21). */
    private static final class Progress {
        CalloutReason step = CalloutReason.NO_BEARER;
    }

    /**
     * A request as the dispatcher classified it (SPEC §13.16): opened, its lane and its source
     * known, nothing verified yet. {@code bearer} is true when its {@code auth_token} has the shape
     * of a bearer (a compact JWS); {@code source} is the broker's {@code client_info.host}.
     */
    record Arrival(String replyTo, String serverXkey, String request, boolean bearer, String source, long arrived) {
        @Override
        public String toString() {
            return "Arrival[bearer=" + bearer + ", source=" + source + "]";
        }
    }

    /** The sealed answer to publish to the request's reply subject, or empty to drop the request. */
    public Optional<byte[]> handle(Message message) {
        Arrival arrival = arrive(message, System.nanoTime());
        return arrival == null ? Optional.empty() : handle(arrival);
    }

    /**
     * The dispatcher's step, cheap by design: the header and reply subject present, the payload
     * opened from the header key (a symmetric decrypt: the box key is cached per server), the
     * claims read without their signature for the bearer's shape and the client's host. Null
     * (the drop recorded) when the request has no header or reply subject or does not open.
     */
    Arrival arrive(Message message, long arrived) {
        String serverXkey = message.getHeaders() == null ? null : message.getHeaders().getFirst(XKEY_HEADER);
        if (serverXkey == null || message.getReplyTo() == null) {
            drop(CalloutReason.UNSEALED, "unsealed request", arrived);
            return null;
        }
        String request;
        try {
            request = new String(options.callout().xkey().open(message.getData(), serverXkey), StandardCharsets.US_ASCII);
        } catch (CotalException e) {
            drop(CalloutReason.UNVERIFIED, "request does not open: " + e.getMessage(), arrived);
            return null;
        }
        JsonNode claims = RequestPeek.claims(request);
        return new Arrival(message.getReplyTo(), serverXkey, request,
                RequestPeek.bearerShaped(claims.path("nats").path("connect_opts").path("auth_token").asText("")),
                claims.path("nats").path("client_info").path("host").asText(""), arrived);
    }

    /** Answers a classified request: verifies it, then the steps of SPEC §13.16; empty drops it. */
    Optional<byte[]> handle(Arrival arrival) {
        long arrived = arrival.arrived();
        String serverXkey = arrival.serverXkey();
        ClaimSet<AuthorizationRequestClaim> request;
        try {
            request = NatsJwt.decode(arrival.request(), AuthorizationRequestClaim.class);
            verifier.checkTimes(request);
        } catch (CotalException e) {
            return drop(CalloutReason.UNVERIFIED, "request does not verify: " + e.getMessage(), arrived);
        }
        AuthorizationRequestClaim body = request.nats();
        if (body.serverId() == null || body.serverId().id() == null || body.userNkey() == null) {
            return drop(CalloutReason.FOREIGN_SERVER, "request without server id or user key", arrived);
        }
        String serverId = body.serverId().id();
        if (!request.iss().equals(serverId)) {
            return drop(CalloutReason.FOREIGN_SERVER, "issuer is not the server", arrived);
        }
        if (!options.expectedServerIds().isEmpty() && !options.expectedServerIds().contains(serverId)) {
            return drop(CalloutReason.FOREIGN_SERVER, "server " + serverId + " is not expected", arrived);
        }
        if (!serverXkey.equals(body.serverId().xkey())) {
            return drop(CalloutReason.FOREIGN_SERVER, "server_id.xkey differs from the header", arrived);
        }
        String response;
        Progress progress = new Progress();
        CalloutOutcome outcome = CalloutOutcome.ADMITTED;
        ErrorCode code = null;
        try {
            response = admit(body, progress);
        } catch (RuntimeException e) {
            outcome = CalloutOutcome.REFUSED;
            code = e instanceof CotalException refusal ? refusal.code() : ErrorCode.INTERNAL;
            String reason = CalloutRefusal.reason(e);
            if (reason.equals(e.getMessage())) {
                LOG.info("auth-callout: space {}: refused a connect: {}", options.plane().space(), reason);
            } else { // the broker gets the generic text; the operator a path-free account of the failure
                LOG.warn("auth-callout: space {}: refused a connect ({}): {}", options.plane().space(),
                        e.getClass().getSimpleName(), CalloutRefusal.withoutPaths(e));
            }
            response = answer(body, serverId, null, reason);
        }
        Optional<byte[]> sealed = Optional.of(options.callout().xkey().seal(response.getBytes(StandardCharsets.US_ASCII),
                serverXkey));
        metrics.calloutDecision(outcome, outcome == CalloutOutcome.ADMITTED ? CalloutReason.ADMITTED : progress.step, code,
                System.nanoTime() - arrived);
        return sealed;
    }

    /** Each step names itself in {@code progress} before it runs, so a refusal is counted at the check that refused. */
    private String admit(AuthorizationRequestClaim body, Progress progress) {
        String token = body.connectOpts() == null ? null : body.connectOpts().authToken();
        if (token == null || token.isEmpty()) {
            throw CotalException.unauthenticated("no bearer: connect with the sentinel credential and a bearer token");
        }
        progress.step = CalloutReason.BEARER;
        BearerClaims bearer = options.plane().verifyBearer(token);
        progress.step = CalloutReason.CONNECT;
        ActorRow row = options.plane().authorizeConnect(bearer.attempt());
        progress.step = CalloutReason.NONCE;
        String nonce = body.connectOpts().name();
        if (nonce == null || !nonce.matches("[A-Za-z0-9_-]{8,120}")) {
            throw CotalException.badRequest("name", "the connection name must be the inbox nonce (8 to 120 of"
                    + " [A-Za-z0-9_-]); connect with inboxPrefix _INBOX_<nonce>");
        }
        if (!InboxNonce.belongsTo(nonce, row.principal())) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "name: the inbox nonce is not this principal's;"
                    + " derive it with InboxNonce.forPrincipal(principal)");
        }
        progress.step = CalloutReason.ENDPOINT;
        EndpointAccess access = options.plane().endpointAccess(bearer, row);
        progress.step = CalloutReason.SESSION;
        Optional<ManagerAuthority.Session> session = bearer.view().filter(BearerRequest.SessionCaller.VIEW::equals)
                .map(v -> options.plane().verifySession(bearer)); // SPEC §14.5, before any permission is minted
        progress.step = CalloutReason.PERMISSIONS;
        UserClaim permissions = session.isPresent() ? CallerPermissions.session(options, row, session.get(), nonce)
                : CallerPermissions.of(options, row, bearer, nonce, access);
        progress.step = CalloutReason.INTERNAL;
        long exp = session.map(s -> Math.min(bearer.expiresAt(), s.expiresAt())).orElse(bearer.expiresAt());
        Instant now = options.clock().instant();
        String user = NatsJwt.encode(ClaimSet.of(body.userNkey(), userName(row, access), permissions, now)
                .withExp(exp), options.signer().signing());
        Long clientId = body.clientInfo() == null ? null : body.clientInfo().id();
        if (clientId == null) {
            throw CotalException.internal("the broker named no client id for this connect", null);
        }
        LiveConnection live = new LiveConnection(body.serverId().id(), clientId, body.userNkey(), exp);
        progress.step = CalloutReason.REGISTER;
        if (!access.isEmpty()) { // recorded before the answer, so a revoke from here on closes it
            options.plane().admitted(live, access);
        }
        options.plane().admittedAt(live, row); // and a retirement of its lifecycle (SPEC §14.1)
        return answer(body, body.serverId().id(), user, null);
    }

    /**
     * The admitted user's name, {@code <owner>-<actor>} and then, one space before each, its
     * lifecycle key and the endpoint keys it holds: the broker keeps the name (CONNZ's
     * {@code authorized_user}) but not the tags of a callout user, so a later plane's revoke or
     * retirement finds the connection by it (SPEC §13.16).
     */
    static String userName(ActorRow row, EndpointAccess access) {
        StringBuilder name = new StringBuilder(row.owner().value()).append('-').append(row.actor().value())
                .append(' ').append(LiveConnection.lifecycleKey(row.lifecycleUid().value()));
        access.keys().forEach(key -> name.append(' ').append(key));
        return name.toString();
    }

    private String answer(AuthorizationRequestClaim body, String serverId, String userJwt, String error) {
        AuthorizationResponseClaim response = new AuthorizationResponseClaim(userJwt, error,
                options.callout().accountPublicKey(), null);
        return NatsJwt.encode(ClaimSet.of(body.userNkey(), null, response, options.clock().instant()).withAud(serverId),
                options.callout().signing());
    }

    private Optional<byte[]> drop(CalloutReason reason, String why, long arrived) {
        LOG.debug("auth-callout: dropped a request: {}", why);
        metrics.calloutDecision(CalloutOutcome.DROPPED, reason, null, System.nanoTime() - arrived);
        return Optional.empty();
    }

    /** The subjects a ceiling side allows, as a user JWT list. */
    static List<String> allow(Ceiling.Side side) {
        return switch (side.mode()) {
            case ALL -> List.of(">");
            case NONE -> List.of();
            case PATTERNS -> side.patterns();
        };
    }
}
