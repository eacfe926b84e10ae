package ai.cotal.auth.signer;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerProfile;
import ai.cotal.signer.SignerServer;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24's refusals on a real broker: a profile outside the signer's policy, a lifetime over
 * its bound, a grant on {@code $SYS.>} or another space's prefix, another issuer account. Each
 * reaches the signer's caller as a typed error and is in the audit log.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RemoteSignerRefusalBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String CALLOUT_ERROR = "Auth callout service returned an error";

    @TempDir
    Path dir;

    /** The plane's own profiles and the plain callout member, bounded to 60 s; no manager profile. */
    private static SignerPolicy planeOnly(RemoteSpace space) {
        return planeOnly(space, null);
    }

    /** As above, plain members at {@code memberRate} signatures per principal and minute (null: the stock rate). */
    private static SignerPolicy planeOnly(RemoteSpace space, Integer memberRate) {
        return space.policy(60, memberRate, SignerProfile.AUTH_READER, SignerProfile.EP_DISCOVERY, SignerProfile.AUTH_BARRIER,
                SignerProfile.AUTH_MINT, SignerProfile.AUTH_ISSUER_WINDOW, SignerProfile.AUTH_ISSUER,
                SignerProfile.AUTH_ADMIN, SignerProfile.AUTH_SCAN, SignerProfile.RECORDS_SCAN,
                SignerProfile.CALLOUT_MEMBER);
    }

    private static void audited(RemoteSpace space, String reason) throws Exception {
        for (JsonNode line : space.auditLines()) {
            if (line.path("event").asText().equals("refused") && line.path("reason").asText().contains(reason)) {
                return;
            }
        }
        throw new AssertionError("no refused record with \"" + reason + "\" in the audit log");
    }

    private static CotalException refused(ErrorCode code, String reason, Runnable call) {
        CotalException e = assertThrows(CotalException.class, call::run);
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        return e;
    }

    private static ClaimSet<UserClaim> user(SpaceSigner signer, String issuerAccount, String publish) {
        UserClaim body = UserClaim.of(Permission.allow(List.of(publish)),
                Permission.allow(List.of("_INBOX_abcdefghijklmnop-0123456789.>")), issuerAccount,
                List.of("owner:" + OWNER, "actor:laptop"));
        return ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), "x", body, java.time.Instant.now())
                .withExp(java.time.Instant.now().getEpochSecond() + 30);
    }

    @Test
    void eachRefusalReachesTheCallerTypedAndIsInTheAuditLog(NatsBrokers brokers) throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        try (SignerServer signer = space.startSigner(planeOnly(space))) {
            SpaceSigner remote = space.remote();
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                    .space("alpha").stateDir(dir.resolve("state")).secretStore(space.serviceStore).signer(remote)
                    .standingTtl(Duration.ofSeconds(30)).build()); // within the policy's 60 s
                 AuthCallout callout = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(space.callout)
                         .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(remote).build())) {
                // a profile outside the policy, asked for through the plane's own API
                plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
                refused(ErrorCode.PERMISSION_DENIED, "profile: manager-registrar is not in this signer's policy",
                        () -> plane.managers().registrarCredential(Principal.of(OWNER, "mgr"), new InstanceId("abcdefghijklmnopqrstuvwxyz"),
                                Duration.ofMinutes(1)));
                audited(space, "profile: manager-registrar is not in this signer's policy");

                // a lifetime over the bound: a 5-minute bearer asks the callout for a 5-minute member
                ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"),
                        List.of("general"), List.of("general")));
                String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"),
                        row.lifecycleUid(), plane.credentials().mint(Principal.of(OWNER, "laptop"), row.lifecycleUid()).id(),
                        Duration.ofMinutes(5)));
                long mark = nats.log().mark();
                assertThrows(Exception.class, () -> RemoteSignerServiceBrokerTest.connect(nats, space, bearer,
                        InboxNonce.forPrincipal(Principal.of(OWNER, "laptop"))).close(), "the broker refused the connect");
                String line = nats.log().await(mark, l -> l.contains(CALLOUT_ERROR), Duration.ofSeconds(5))
                        .orElseThrow(() -> new AssertionError("no callout refusal in the broker's log"));
                assertTrue(line.contains("signer refused: exp: a lifetime of") && line.contains(
                        "exceeds the bound of 60 s of profile callout-member"), line);
                audited(space, "exceeds the bound of 60 s of profile callout-member");

                // what the plane never asks for, as a compromised plane would: $SYS, another space, another account
                String account = remote.accountPublicKey();
                refused(ErrorCode.PERMISSION_DENIED, "reaches $SYS.>, which is never granted",
                        () -> NatsJwt.encode(user(remote, account, "$SYS.REQ.ACCOUNT.PING.CONNZ"), remote.signing()));
                audited(space, "$SYS.REQ.ACCOUNT.PING.CONNZ reaches $SYS.>");
                refused(ErrorCode.PERMISSION_DENIED, "reaches another space's prefix",
                        () -> NatsJwt.encode(user(remote, account, "cotal.beta.chat." + OWNER + ".laptop.general"),
                                remote.signing()));
                audited(space, "cotal.beta.chat." + OWNER + ".laptop.general reaches another space's prefix");
                String other = NKeyPair.create(KeyType.ACCOUNT).publicKey();
                refused(ErrorCode.PERMISSION_DENIED, "issuer_account: this signer serves account " + account + " only",
                        () -> NatsJwt.encode(user(remote, other, "cotal.alpha.chat." + OWNER + ".laptop.general"),
                                remote.signing()));
                audited(space, "issuer_account: this signer serves account " + account + " only");
            }
        }
    }

    /**
     * Plain connects (no write budget applies to them) are rated per principal at the signer: a
     * member looping connects is refused past its rate, and its refusals of one minute leave one
     * audit record, so the loop neither signs nor grows the log without bound (SPEC §16.2, §16.3).
     */
    @Test
    void aMemberLoopingPlainConnectsIsRatedAndItsRefusalsAreFolded(NatsBrokers brokers) throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        try (SignerServer signer = space.startSigner(planeOnly(space, 3))) {
            SpaceSigner remote = space.remote();
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                    .space("alpha").stateDir(dir.resolve("state")).secretStore(space.serviceStore).signer(remote)
                    .standingTtl(Duration.ofSeconds(30)).build());
                 AuthCallout callout = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(space.callout)
                         .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(remote).build())) {
                ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"),
                        List.of("general"), List.of("general")));
                String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"),
                        row.lifecycleUid(), plane.credentials().mint(Principal.of(OWNER, "laptop"), row.lifecycleUid()).id(),
                        Duration.ofSeconds(50)));
                String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, "laptop"));
                for (int i = 0; i < 3; i++) {
                    RemoteSignerServiceBrokerTest.connect(nats, space, bearer, nonce).close();
                }
                for (int i = 0; i < 5; i++) {
                    long mark = nats.log().mark();
                    assertThrows(Exception.class, () -> RemoteSignerServiceBrokerTest.connect(nats, space, bearer, nonce)
                            .close(), "the broker refused connect " + (4 + i));
                    String line = nats.log().await(mark, l -> l.contains(CALLOUT_ERROR), Duration.ofSeconds(5))
                            .orElseThrow(() -> new AssertionError("no callout refusal in the broker's log"));
                    assertTrue(line.contains("signer refused: rate: this principal had 3 signatures of profile"
                            + " callout-member in the last minute"), line);
                }
                List<JsonNode> lines = space.auditLines();
                assertEquals(3, lines.stream().filter(l -> l.path("event").asText().equals("signed")
                        && l.path("profile").asText().equals("callout-member")).count());
                assertEquals(1, lines.stream().filter(l -> l.path("reason").asText().startsWith("rate: ")).count(),
                        "five refusals of one minute, one record");
            }
        }
    }
}
