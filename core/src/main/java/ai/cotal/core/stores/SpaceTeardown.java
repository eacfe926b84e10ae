package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.claims.AccountClaims;
import ai.cotal.core.claims.ClusterMembers;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A retired space's teardown on a running broker (SPEC §5.2 "Teardown"): {@link #tearDown} opens
 * the teardown window, deletes every stream the space owns and retires the space again;
 * {@link #deleteStreams} is its stream half. Stateless and thread-safe; a teardown of one space
 * must not run concurrently with another of the same space (the window admits one connection).
 */
public final class SpaceTeardown {
    private static final int STREAM_NOT_FOUND = 10059;

    private SpaceTeardown() {
    }

    /**
     * What a teardown did: the streams it deleted (the message streams, then the buckets' streams,
     * the endpoint streams and the artifact store's, SPEC §6.1; empty on a replay of a finished
     * one) and the new retired account claim, which the caller has stored (it was given to
     * {@code storeRetired} before it was pushed) and which every later lifecycle step of the space
     * starts from.
     */
    public record Outcome(List<String> deleted, String retiredJwt) {
        public Outcome {
            deleted = List.copyOf(deleted);
        }
    }

    /**
     * Deletes every stream of the retired space {@code space} on the broker {@code claims} pushes
     * to, leaving it retired. In this order: every argument checked and the window claim and a
     * one-shot {@code teardown} credential made locally (nothing sent); the window
     * ({@code AccountClaims.teardownWindow}: one connection, the retirement's revocations kept)
     * pushed to {@code members}; one connection opened with {@code connect} as the teardown
     * credential (issued after the retirement's revocation) and {@link #deleteStreams}; then,
     * always once the window may have been sent, a new retirement of the window (its
     * {@code revocations["*"]} covering the teardown user) given to {@code storeRetired} and then
     * pushed, also when storing failed, so the window is never left open.
     *
     * <p>A replay (the call again with the stored retired claim) finishes an interrupted run: the
     * new window is issued later than any earlier one and the streams already gone are skipped; a
     * replay after a finished run deletes nothing and re-retires the space. The caller must
     * persist the claim given to {@code storeRetired}: a replay from an older claim can be refused
     * as older than the one the broker holds.
     *
     * @param claims a claims connection of the space's broker
     * @param members the members every push expects ({@code claims.members} or {@code ClusterMembers.of})
     * @param space the broker's trust and the space's account; its {@code jwt} the retired claim as stored
     * @param connect opens a connection as the given credential (e.g. through {@code NatsConnector});
     *     the connection is closed here
     * @param storeRetired persists the new retired claim; called once the window may have been sent,
     *     before the claim is pushed
     * @param maxWait how long each push waits for the members
     * @throws CotalException before anything is sent: {@code bad-request} naming the argument (a
     *     {@code space} whose claim is not of the broker of {@code claims}); {@code failed-precondition}
     *     naming {@code space} when its claim is live; {@code unavailable} naming {@code space} when
     *     its claim is issued so far ahead of {@code claims}' clock (teardowns in quick succession)
     *     that the closing retirement would be refused as issued in the future: run it again once
     *     the clock has caught up. Afterwards: a push's failure (SPEC §5.1, e.g.
     *     {@code PushIncomplete}), the connection's ({@code unauthenticated}, {@code unavailable}),
     *     a delete's or {@code storeRetired}'s; the first failure is thrown with the later ones
     *     suppressed, and running the call again converges
     */
    public static Outcome tearDown(AccountClaims claims, ClusterMembers members, SpaceAuth space,
            Function<Creds, Connection> connect, Consumer<String> storeRetired, Duration maxWait) {
        required(claims, "claims");
        required(members, "members");
        required(space, "space");
        required(connect, "connect");
        required(storeRetired, "storeRetired");
        Clock clock = claims.clock();
        if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
            throw CotalException.badRequest("maxWait", "must be positive");
        }
        if (!claims.broker().operator().publicKey().equals(space.broker().operator().publicKey())) {
            throw CotalException.badRequest("space", "is under another operator than the broker of claims");
        }
        ClaimSet<AccountClaim> current;
        try {
            current = space.account().requireSignedBy(space.broker(), clock);
        } catch (CotalException e) {
            throw CotalException.badRequest("space", "its account claim does not verify (" + e.getMessage() + ")");
        }
        if (current.nats().limits() == null || !current.nats().limits().admitsNoConnection()) {
            throw CotalException.failedPrecondition("space: '" + space.account().space() + "' is live: only a retired"
                    + " space is torn down (its account claim admits connections; back it up, retire it, then tear it down)");
        }
        long now = clock.instant().getEpochSecond();
        String window = AccountClaims.teardownWindow(space.broker(), space.account().jwt(), now);
        // every re-signing is issued a second after the claim it replaces: a push refuses a claim
        // issued more than the skew ahead, and the closing retirement must not be the one refused
        long closingIat = NatsJwt.decode(window).iat() + 1;
        if (closingIat > now + ClaimVerifier.DEFAULT_SKEW.toSeconds()) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "space: its account claim is issued ahead of the clock"
                    + " (iat " + current.iat() + ", now " + now + "): nothing was sent; run the teardown again in "
                    + (closingIat - now - ClaimVerifier.DEFAULT_SKEW.toSeconds()) + " s");
        }
        // a user issued at or before the retirement's revocation is refused: the teardown user is issued after it
        Map<String, Long> revoked = current.nats().revocations();
        long issuedAt = Math.max(now, (revoked == null ? 0 : revoked.getOrDefault("*", 0L)) + 1);
        Creds teardown = Creds.mint(space, Identity.create(), CredentialProfile.TEARDOWN, MintOptions.builder()
                .clock(Clock.fixed(Instant.ofEpochSecond(issuedAt), ZoneOffset.UTC)).build());
        List<String> deleted = List.of();
        RuntimeException failure = null;
        try {
            claims.push(window, members, maxWait);
            deleted = deleteWith(connect, teardown, space.account().space());
        } catch (RuntimeException e) {
            failure = e;
        }
        String retired = AccountClaims.retire(space.broker(), window, Math.max(issuedAt, clock.instant().getEpochSecond()));
        failure = attempt(failure, () -> storeRetired.accept(retired));
        failure = attempt(failure, () -> claims.push(retired, members, maxWait));
        if (failure != null) {
            throw failure;
        }
        return new Outcome(deleted, retired);
    }

    private static List<String> deleteWith(Function<Creds, Connection> connect, Creds teardown, String space) {
        Connection connection = connect.apply(teardown);
        if (connection == null) {
            throw CotalException.badRequest("connect", "returned no connection");
        }
        try (connection) {
            return deleteStreams(connection, space);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted closing the teardown connection", e);
        }
    }

    /** Runs {@code step}; returns the first failure, a later one suppressed into it. */
    private static RuntimeException attempt(RuntimeException failure, Runnable step) {
        try {
            step.run();
            return failure;
        } catch (RuntimeException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
            return failure;
        }
    }

    private static void required(Object value, String field) {
        if (value == null) {
            throw CotalException.badRequest(field, "is required");
        }
    }

    /**
     * Deletes the streams of {@code space} that exist; returns those it deleted, in the order of
     * {@link Outcome#deleted()}. {@code unavailable} or the broker's code when one cannot be
     * deleted; those deleted before stay deleted and a replay goes on from there.
     */
    public static List<String> deleteStreams(Connection connection, String space) {
        SpaceName.of(space, "space");
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<String> deleted = new ArrayList<>();
        for (String stream : StoreNames.allStreams(space)) {
            try {
                jsm.deleteStream(stream);
                deleted.add(stream);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
                    throw SpaceStores.apiFailure("delete " + stream, e);
                }
            } catch (IOException e) {
                throw SpaceStores.unavailable("delete " + stream, e);
            }
        }
        return List.copyOf(deleted);
    }
}
