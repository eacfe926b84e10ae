package ai.cotal.core.claims;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.trust.BrokerAuth;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import io.nats.client.api.ServerInfo;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Account claims on a running broker with a full resolver (SPEC §5): push, look up, list and
 * reconcile over a system-account connection (the {@code account-claims} profile), and the
 * retire/reinstate claims. A push expects every member of the broker's cluster
 * ({@link #members(Duration)}, SPEC §5.5: a lone server is its own cluster of one) and names the
 * members that did not answer. Every claim is checked locally before anything is sent: signed by this
 * broker's operator (nats-server would store a foreign claim, say "jwt updated", and lock the
 * account's users out) and not older than the claim the broker holds (the full resolver silently
 * keeps the held one).
 *
 * <p>Thread-safe: each call uses its own reply subscription on the shared connection. The caller
 * owns and closes the connection.
 */
public final class AccountClaims {
    private static final String UPDATE = "$SYS.REQ.ACCOUNT.%s.CLAIMS.UPDATE";
    private static final String LOOKUP = "$SYS.REQ.ACCOUNT.%s.CLAIMS.LOOKUP";
    private static final String LIST = "$SYS.REQ.CLAIMS.LIST";
    private static final String JSZ = "$SYS.REQ.SERVER.%s.JSZ";

    private final Connection system;
    private final BrokerAuth broker;
    private final Clock clock;

    /**
     * @param system a connection as a system-account user allowed the claim subjects
     * @param broker the trust the claims must chain to (the operator; no system key needed)
     */
    public AccountClaims(Connection system, BrokerAuth broker, Clock clock) {
        this.system = Objects.requireNonNull(system, "system");
        this.broker = Objects.requireNonNull(broker, "broker");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The broker trust every claim sent here must chain to. */
    public BrokerAuth broker() {
        return broker;
    }

    /** The clock every claim sent here is checked against. */
    public Clock clock() {
        return clock;
    }

    /** A retired copy of {@code accountJwt}: no new connections, every user issued up to now revoked. */
    public static String retire(BrokerAuth broker, String accountJwt, long nowSeconds) {
        return AccountRetirement.retire(broker, accountJwt, nowSeconds);
    }

    /**
     * The teardown window of a retired claim (SPEC §5.2): one connection admitted
     * ({@code limits.conn = 1}), the retirement's revocations kept, so only a user issued after
     * the retirement (the teardown's own one-shot credential) can connect, one at a time. Pushed
     * only for the teardown and followed by {@link #retire} of it. {@code failed-precondition}
     * when the claim is not retired.
     */
    public static String teardownWindow(BrokerAuth broker, String retiredJwt, long nowSeconds) {
        return AccountRetirement.teardownWindow(broker, retiredJwt, nowSeconds);
    }

    /** A reinstated copy of a retired claim: connections admitted again, the retirement's revocations kept. */
    public static String reinstate(BrokerAuth broker, String retiredJwt, long nowSeconds) {
        return AccountRetirement.reinstate(broker, retiredJwt, nowSeconds);
    }

    /**
     * Pushes {@code accountJwt} to every server of the broker and waits until each member of
     * {@code members} (by server name) has answered or {@code maxWait} has passed (SPEC §5.1).
     *
     * @throws CotalException {@code bad-request} for a claim not of this operator (nothing sent);
     *     {@code conflict} when the broker holds a newer claim (nothing sent);
     *     {@code failed-precondition} naming a server that answered with an error or is not a
     *     member; {@link PushIncomplete} ({@code deadline-exceeded}) naming the members that did
     *     not answer (a member that is down, an unnamed one) and those that did;
     *     {@code unavailable} when the connection closed, saying whether the update was sent (then
     *     it may have landed: pushing the same claim again converges)
     */
    public PushResult push(String accountJwt, ClusterMembers members, Duration maxWait) {
        ClaimSet<AccountClaim> claim = check(accountJwt);
        if (members == null) {
            throw CotalException.badRequest("members", "is required (AccountClaims.members or ClusterMembers.of)");
        }
        checkWait(maxWait);
        List<String> unnamed = members.unnamedPeers().stream().map(ClusterMembers::unnamedLabel).toList();
        return push(claim, accountJwt, new Expected(members.names(), unnamed, ClaimsReply::serverName), maxWait);
    }

    /**
     * Pushes {@code accountJwt} to every server of the broker and waits until each server in
     * {@code expectedServerIds} has answered or {@code maxWait} has passed. A server id names one
     * run of a server (nats-server makes a new one at every start): on a cluster, or across
     * restarts, push to {@link #members(Duration) the members} instead.
     *
     * @throws CotalException as {@link #push(String, ClusterMembers, Duration)}, naming servers by id
     */
    public PushResult push(String accountJwt, Set<String> expectedServerIds, Duration maxWait) {
        ClaimSet<AccountClaim> claim = check(accountJwt);
        Set<String> expected = checkServers(expectedServerIds);
        checkWait(maxWait);
        return push(claim, accountJwt, new Expected(expected, List.of(), ClaimsReply::serverId), maxWait);
    }

    /**
     * The members of the broker's cluster, learned from the server this connection reached
     * (SPEC §5.5): that server alone when it is not clustered (nothing is sent); otherwise its
     * JetStream meta group, members that are down included.
     *
     * @throws CotalException {@code failed-precondition} when the meta group cannot be trusted (no
     *     meta group, fewer members known than its size, an error answer): give the members with
     *     {@link ClusterMembers#of}; {@code deadline-exceeded} without an answer
     */
    public ClusterMembers members(Duration maxWait) {
        checkWait(maxWait);
        ServerInfo info = system.getServerInfo();
        if (info == null || info.getCluster() == null || info.getCluster().isEmpty()) {
            return ClusterMembers.loneServer(info == null ? null : info.getServerName());
        }
        String subject = String.format(JSZ, info.getServerId());
        Message reply;
        try {
            reply = request(subject, new byte[0], maxWait);
        } catch (CotalException e) {
            if (e.code() != ErrorCode.DEADLINE_EXCEEDED) {
                throw e;
            }
            throw new CotalException(ErrorCode.DEADLINE_EXCEEDED, e.getMessage() + ": the members of cluster "
                    + info.getCluster() + " are unknown (an account-claims credential minted without $SYS.REQ.SERVER.*.JSZ"
                    + " is refused this request); retry, or give them with ClusterMembers.of(serverNames)", e);
        }
        return ClusterMembers.fromMetaGroup(info.getCluster(), ClaimsReply.parse(reply.getData()));
    }

    /** Which servers a push waits for and how an answer is keyed (by name or by id). */
    private record Expected(Set<String> keys, List<String> unnamed, Function<ClaimsReply, String> key) {
    }

    private PushResult push(ClaimSet<AccountClaim> claim, String accountJwt, Expected expected, Duration maxWait) {
        Optional<ClaimSet<AccountClaim>> held = held(claim.sub(), maxWait);
        if (held.isPresent() && held.get().iat() > claim.iat()) {
            throw new CotalException(ErrorCode.CONFLICT, "accountJwt: iat " + claim.iat()
                    + " is older than the claim the broker holds for " + claim.sub() + " (iat " + held.get().iat() + ")");
        }
        List<ClaimsReply> replies = gather(String.format(UPDATE, claim.sub()), accountJwt, expected, maxWait);
        Map<String, ClaimsReply> byServer = ClaimsReply.byServer(replies, expected.key());
        for (Map.Entry<String, ClaimsReply> answer : byServer.entrySet()) {
            if (!expected.keys().contains(answer.getKey())) {
                throw CotalException.failedPrecondition("server " + answer.getKey()
                        + " answered the push of " + claim.sub() + " but is not one of the expected servers");
            }
            if (!answer.getValue().updated()) {
                ClaimsReply reply = answer.getValue();
                throw CotalException.failedPrecondition("server " + answer.getKey() + " refused the claim of "
                        + claim.sub() + ": " + (reply.error() != null ? reply.error() : "no 'jwt updated'"));
            }
        }
        List<String> missing = new ArrayList<>(expected.keys());
        missing.removeAll(byServer.keySet());
        missing.addAll(expected.unnamed());
        PushResult result = new PushResult(claim.sub(), claim.jti(),
                byServer.values().stream().map(ClaimsReply::serverId).toList(),
                byServer.values().stream().map(ClaimsReply::serverName).toList(), missing);
        if (!result.complete()) {
            throw new PushIncomplete(result, maxWait.toMillis());
        }
        return result;
    }

    /** The claim the broker holds for {@code account}, or empty; a held claim that does not decode is reported, not trusted. */
    public Optional<String> lookup(String account, Duration maxWait) {
        if (!NKeyCodec.isPublic(account, KeyType.ACCOUNT)) {
            throw CotalException.badRequest("account", "must be an account public key");
        }
        checkWait(maxWait);
        Message reply = request(String.format(LOOKUP, account), new byte[0], maxWait);
        String body = new String(reply.getData(), StandardCharsets.UTF_8).trim();
        return body.isEmpty() ? Optional.empty() : Optional.of(body);
    }

    /** The accounts the answering server holds claims for. */
    public List<String> list(Duration maxWait) {
        checkWait(maxWait);
        return ClaimsReply.parse(request(LIST, new byte[0], maxWait).getData()).accounts();
    }

    /**
     * Compares what the broker holds with {@code expectedClaims} and pushes each claim that is
     * missing or older there, expecting every member of {@code members}. Never deletes: accounts
     * the host did not name are only reported.
     */
    public ReconcileReport reconcile(List<String> expectedClaims, ClusterMembers members, Duration maxWait) {
        if (members == null) {
            throw CotalException.badRequest("members", "is required (AccountClaims.members or ClusterMembers.of)");
        }
        return reconcile(expectedClaims, () -> { }, claim -> push(claim, members, maxWait), maxWait);
    }

    /** As {@link #reconcile(List, ClusterMembers, Duration)}, expecting the servers by id. */
    public ReconcileReport reconcile(List<String> expectedClaims, Set<String> expectedServerIds, Duration maxWait) {
        return reconcile(expectedClaims, () -> checkServers(expectedServerIds),
                claim -> push(claim, expectedServerIds, maxWait), maxWait);
    }

    /** Every claim verified first, then the targets ({@code checkTargets}), then one lookup and maybe a push per claim. */
    private ReconcileReport reconcile(List<String> expectedClaims, Runnable checkTargets, Consumer<String> pusher,
            Duration maxWait) {
        List<ClaimSet<AccountClaim>> claims = new ArrayList<>();
        for (int i = 0; i < expectedClaims.size(); i++) {
            try {
                claims.add(check(expectedClaims.get(i)));
            } catch (CotalException e) {
                throw CotalException.badRequest("expectedClaims[" + i + "]", e.getMessage());
            }
        }
        checkTargets.run();
        List<String> pushed = new ArrayList<>();
        List<String> unchanged = new ArrayList<>();
        List<String> newer = new ArrayList<>();
        Set<String> named = new LinkedHashSet<>();
        for (int i = 0; i < claims.size(); i++) {
            ClaimSet<AccountClaim> claim = claims.get(i);
            named.add(claim.sub());
            Optional<ClaimSet<AccountClaim>> held = held(claim.sub(), maxWait);
            if (held.isPresent() && Objects.equals(held.get().jti(), claim.jti())) {
                unchanged.add(claim.sub());
            } else if (held.isPresent() && held.get().iat() > claim.iat()) {
                newer.add(claim.sub());
            } else {
                pusher.accept(expectedClaims.get(i));
                pushed.add(claim.sub());
            }
        }
        List<String> unexpected = new ArrayList<>(list(maxWait));
        unexpected.removeAll(named);
        unexpected.remove(broker.systemAccount());
        return new ReconcileReport(pushed, unchanged, newer, unexpected);
    }

    private ClaimSet<AccountClaim> check(String accountJwt) {
        try {
            return new ClaimVerifier(clock).verifyAccount(accountJwt, broker.operatorClaims(clock));
        } catch (CotalException e) {
            throw CotalException.badRequest("accountJwt", "not a valid account claim of this broker's operator ("
                    + e.getMessage() + ")");
        }
    }

    /** The held claim, decoded with its signature checked; a claim that does not decode counts as absent. */
    private Optional<ClaimSet<AccountClaim>> held(String account, Duration maxWait) {
        return lookup(account, maxWait).flatMap(jwt -> {
            try {
                return Optional.of(NatsJwt.decode(jwt, AccountClaim.class));
            } catch (CotalException e) {
                return Optional.empty();
            }
        });
    }

    private static Set<String> checkServers(Set<String> expectedServerIds) {
        if (expectedServerIds == null || expectedServerIds.isEmpty()) {
            throw CotalException.badRequest("expectedServerIds", "name at least one server");
        }
        for (String id : expectedServerIds) {
            if (!NKeyCodec.isPublic(id, KeyType.SERVER)) {
                throw CotalException.badRequest("expectedServerIds", "'" + id + "' is not a server id");
            }
        }
        return Set.copyOf(expectedServerIds);
    }

    private static void checkWait(Duration maxWait) {
        if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
            throw CotalException.badRequest("maxWait", "must be positive");
        }
    }

    private Message request(String subject, byte[] body, Duration maxWait) {
        try {
            Message reply = system.request(subject, body, maxWait);
            if (reply == null) {
                throw new CotalException(ErrorCode.DEADLINE_EXCEEDED, "no answer on " + subject + " within "
                        + maxWait.toMillis() + " ms");
            }
            return reply;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted waiting on " + subject, e);
        } catch (IllegalStateException e) {
            throw closed(subject, e);
        }
    }

    /** jnats refuses every call on a closed connection with an IllegalStateException: typed here. */
    private static CotalException closed(String subject, IllegalStateException e) {
        return new CotalException(ErrorCode.UNAVAILABLE, "the system connection is closed (" + e.getMessage()
                + "); nothing was sent on " + subject + ": reconnect and push again", e);
    }

    /** Publishes once and collects answers until every expected server answered or the wait ends. */
    private List<ClaimsReply> gather(String subject, String body, Expected expected, Duration maxWait) {
        String inbox = system.createInbox();
        Subscription replies;
        try {
            replies = system.subscribe(inbox);
        } catch (IllegalStateException e) {
            throw closed(subject, e);
        }
        try {
            system.publish(subject, inbox, body.getBytes(StandardCharsets.US_ASCII));
        } catch (RuntimeException e) { // nothing sent: closed (IllegalStateException) or refused by jnats
            unsubscribe(replies);
            throw e instanceof IllegalStateException closedNow ? closed(subject, closedNow) : e;
        }
        try {
            List<ClaimsReply> answers = new ArrayList<>();
            Set<String> waiting = new LinkedHashSet<>(expected.keys());
            long deadline = System.nanoTime() + maxWait.toNanos();
            while (!waiting.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                Message message = replies.nextMessage(Duration.ofNanos(left));
                if (message == null) {
                    break;
                }
                ClaimsReply reply = ClaimsReply.parse(message.getData());
                answers.add(reply);
                waiting.remove(expected.key().apply(reply));
            }
            return answers;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted waiting for the answers to " + subject
                    + ", which was sent: it may have landed; push the same claim again", e);
        } catch (IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the system connection closed after " + subject
                    + " was sent and before every answer came (" + e.getMessage() + "): it may have landed;"
                    + " reconnect and push the same claim again (a push of the same claim is idempotent)", e);
        } finally {
            unsubscribe(replies);
        }
    }

    private static void unsubscribe(Subscription replies) {
        try {
            replies.unsubscribe();
        } catch (IllegalStateException closedAlready) {
            // the connection closed under us: nothing to unsubscribe
        }
    }
}
