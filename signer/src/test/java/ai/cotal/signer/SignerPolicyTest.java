package ai.cotal.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.jwt.AuthorizationResponseClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The signer's policy (SPEC §16.2): recognition by permissions, the fence, bounds, the policy file. */
class SignerPolicyTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String NONCE = "_INBOX_abcdefghijklmnop-0123456789.>";
    private final Claims c = new Claims();
    private final Instant now = Instant.parse("2026-12-01T10:00:00Z");
    private final long in15min = now.getEpochSecond() + 900;

    private PolicyCheck check(SignerPolicy policy) {
        return new PolicyCheck(policy, c.signing.publicKey());
    }

    private PolicyCheck stock() {
        return check(SignerPolicy.stock("alpha", c.account.publicKey()));
    }

    private PolicyCheck.Verdict member(PolicyCheck check, List<String> pub, List<String> sub, Long exp) {
        return check.judge(c.input(c.user(OWNER + "-laptop", Permission.allow(pub), Permission.allow(sub), null,
                Claims.principal(OWNER, "laptop"), now, exp)), now);
    }

    private static void refused(PolicyCheck.Verdict verdict, ErrorCode code, String reason) {
        assertFalse(verdict.signed(), "refused: " + reason);
        assertEquals(code, verdict.refusal().code(), verdict.refusal().getMessage());
        assertTrue(verdict.refusal().getMessage().contains(reason), verdict.refusal().getMessage());
    }

    @Test
    void theCalloutsPlainMemberIsRecognizedByItsPermissions() {
        PolicyCheck.Verdict verdict = member(stock(), List.of("cotal.alpha.chat." + OWNER + ".laptop.general"),
                List.of(NONCE, "cotal.alpha.chat.*.*.general"), in15min);
        assertTrue(verdict.signed(), () -> verdict.refusal().getMessage());
        assertEquals(SignerProfile.CALLOUT_MEMBER, verdict.profile());
    }

    @Test
    void aClaimIsRecognizedByItsGrantsNotByTheNameItGivesItself() {
        NKeyPair user = NKeyPair.create(KeyType.USER);
        ClaimSet<UserClaim> claims = ClaimSet.of(user.publicKey(), "callout-member", UserClaim.of(
                Permission.allow(List.of("$KV.cotal_records_alpha.svc.manager.abcdefghijklmnopqrstuvwxyz.>")),
                Permission.allow(List.of("_INBOX_" + user.publicKey() + ".>")), c.account.publicKey(), null), now)
                .withExp(in15min);
        PolicyCheck.Verdict verdict = stock().judge(c.input(claims), now);
        assertEquals(SignerProfile.MANAGER_REGISTRAR, verdict.profile(), "its grants are a registrar's, whatever its name");
        SignerPolicy membersOnly = SignerPolicy.parse(("{\"ver\":1,\"space\":\"alpha\",\"account\":\"" + c.account.publicKey()
                + "\",\"profiles\":{\"callout-member\":{\"maxLifetimeSeconds\":900}}}").getBytes(StandardCharsets.UTF_8));
        refused(check(membersOnly).judge(c.input(claims), now), ErrorCode.PERMISSION_DENIED,
                "profile: manager-registrar is not in this signer's policy");
    }

    @Test
    void everyAuthorityRoleIsCoveredByItsOwnProfile() {
        Map<AuthorityGrants, SignerProfile> profiles = new EnumMap<>(Map.of(AuthorityGrants.WRITER, SignerProfile.AUTH_MINT,
                AuthorityGrants.BARRIER, SignerProfile.AUTH_BARRIER, AuthorityGrants.READER, SignerProfile.AUTH_READER,
                AuthorityGrants.DISCOVERY, SignerProfile.EP_DISCOVERY, AuthorityGrants.ISSUER, SignerProfile.AUTH_ISSUER,
                AuthorityGrants.ISSUER_WINDOW, SignerProfile.AUTH_ISSUER_WINDOW, AuthorityGrants.ADMIN,
                SignerProfile.AUTH_ADMIN, AuthorityGrants.LEDGER_SCANNER, SignerProfile.AUTH_SCAN,
                AuthorityGrants.RECORDS_SCANNER, SignerProfile.RECORDS_SCAN));
        assertEquals(EnumSet.allOf(AuthorityGrants.class), profiles.keySet(), "every role of the plane");
        profiles.forEach((role, profile) -> {
            NKeyPair user = NKeyPair.create(KeyType.USER);
            UserClaim body = new UserClaim(role.publish("alpha"), role.subscribe("alpha", user.publicKey()), role.response(),
                    null, null, null, -1L, -1L, -1L, null, null, null, c.account.publicKey(), null);
            ClaimSet<UserClaim> claims = ClaimSet.of(user.publicKey(), "cotal:" + profile.label() + ":alpha", body, now);
            long exp = role == AuthorityGrants.ISSUER_WINDOW ? now.getEpochSecond() + 60 : in15min;
            boolean scanner = role == AuthorityGrants.LEDGER_SCANNER || role == AuthorityGrants.RECORDS_SCANNER;
            PolicyCheck.Verdict verdict = stock().judge(c.input(scanner ? claims : claims.withExp(exp)), now);
            assertTrue(verdict.signed(), () -> role + ": " + verdict.refusal().getMessage());
            assertEquals(profile, verdict.profile(), role.toString());
        });
    }

    @Test
    void theMintTemplateHoldsTheStoreLedgerLineAndNoOtherRoleDoes() {
        String ledger = "$KV.cotal_auth_alpha.ledger.>";
        assertTrue(AuthorityGrants.WRITER.publish("alpha").allow().contains(ledger), "the writer's grant (SPEC §13.23)");
        NKeyPair user = NKeyPair.create(KeyType.USER);
        AuthorityGrants writer = AuthorityGrants.WRITER;
        UserClaim body = new UserClaim(writer.publish("alpha"), writer.subscribe("alpha", user.publicKey()), null,
                null, null, null, -1L, -1L, -1L, null, null, null, c.account.publicKey(), null);
        PolicyCheck.Verdict verdict = stock().judge(c.input(ClaimSet.of(user.publicKey(), "cotal:auth-mint:alpha", body, now)
                .withExp(in15min)), now);
        assertTrue(verdict.signed(), () -> verdict.refusal().getMessage());
        assertEquals(SignerProfile.AUTH_MINT, verdict.profile(), "auth-mint's template covers ledger.>");
        List<String> readerPlusLedger = new java.util.ArrayList<>(AuthorityGrants.READER.publish("alpha").allow());
        readerPlusLedger.add(ledger);
        UserClaim reader = new UserClaim(Permission.allow(readerPlusLedger), AuthorityGrants.READER.subscribe("alpha",
                user.publicKey()), null, null, null, null, -1L, -1L, -1L, null, null, null, c.account.publicKey(), null);
        PolicyCheck.Verdict widened = stock().judge(c.input(ClaimSet.of(user.publicKey(), "cotal:auth-reader:alpha",
                reader, now).withExp(in15min)), now);
        assertTrue(!widened.signed() || widened.profile() == SignerProfile.AUTH_MINT,
                "a reader asking for ledger.> is no reader: " + widened.profile());
        assertTrue(!widened.signed() || widened.profile() != SignerProfile.AUTH_READER);
    }

    @Test
    void theManagerRunEffectAndCalloutViewShapesAreRecognized() {
        String iid = "abcdefghijklmnopqrstuvwxyz";
        String accepted = "cotal_accepted_alpha";
        List<String> tags = Claims.principal(OWNER, "mgr");
        record Case(SignerProfile expected, List<String> pub, List<String> sub, ResponsePermission resp, boolean ownInbox) {
        }
        List<Case> cases = List.of(
                new Case(SignerProfile.MANAGER_SERVICE, List.of("$KV.cotal_records_alpha.svc.manager." + iid + ".status",
                        "$KV.cotal_records_alpha.svc.manager." + iid + ".session.>", "cotal.alpha.auth.admin." + iid
                        + ".retire-managed"), List.of("cotal.alpha.svc.manager." + OWNER + ".run-start",
                        "cotal.alpha.svc.manager." + OWNER + ".run.start.*.*"),
                        new ResponsePermission(1, 0), true),
                new Case(SignerProfile.RUN_DRIVER, List.of("cotal.alpha.run." + OWNER + ".run0001.>"), List.of(), null, true),
                new Case(SignerProfile.EP_EFFECT, List.of("$KV.cotal_auth_alpha.svc.req.req-1", "$KV.cotal_auth_alpha.svc.cap"
                        + ".weather." + iid, "$KV.cotal_auth_alpha.epgate.weather." + iid,
                        "$KV.cotal_auth_alpha.plane.witness.*"), List.of(), null, true),
                new Case(SignerProfile.CALLOUT_ENDPOINT_SERVER, null, List.of("cotal.alpha.svc.ep.weather." + iid + ".>",
                        NONCE), new ResponsePermission(1, 0), false),
                new Case(SignerProfile.CALLOUT_MANAGER_CALLER, List.of("cotal.alpha.svc.manager." + OWNER + ".run-start",
                        "cotal.alpha.svc.manager." + OWNER + ".run.start.*.*", "$JS.API.DIRECT.GET.KV_" + accepted + ".$KV."
                        + accepted + ".accepted.v1.0123456789abcdef0123456789abcdef"), List.of(NONCE), null, false),
                new Case(SignerProfile.CALLOUT_MANAGER_CALLER, List.of("cotal.alpha.svc.manager." + OWNER + ".run-resume",
                        "cotal.alpha.svc.manager." + OWNER + ".run.resume.*.0123456789abcdef0123456789abcdef", "$JS.API"
                        + ".DIRECT.GET.KV_" + accepted + ".$KV." + accepted + ".accepted.v1.0123456789abcdef0123456789abcdef"),
                        List.of(NONCE), null, false),
                new Case(SignerProfile.CALLOUT_SESSION_CALLER, List.of("cotal.alpha.svc.manager.u_zyxwvutsrqponmlkjihgfedcba"
                        + ".status"), List.of(NONCE), null, false));
        for (Case k : cases) {
            NKeyPair user = NKeyPair.create(KeyType.USER);
            List<String> sub = new java.util.ArrayList<>(k.sub());
            if (k.ownInbox()) {
                sub.add("_INBOX_" + user.publicKey() + ".>");
            }
            UserClaim body = new UserClaim(k.pub() == null ? Permission.none() : Permission.allow(k.pub()),
                    Permission.allow(sub), k.resp(), null, null, null, -1L, -1L, -1L, null, null, null,
                    c.account.publicKey(), k.expected() == SignerProfile.EP_EFFECT ? null : tags);
            PolicyCheck.Verdict verdict = stock().judge(c.input(ClaimSet.of(user.publicKey(), "x", body, now)
                    .withExp(now.getEpochSecond() + 60)), now);
            assertTrue(verdict.signed(), () -> k.expected() + ": " + verdict.refusal().getMessage());
            assertEquals(k.expected(), verdict.profile());
        }
    }

    @Test
    void theSystemAccountAndOtherSpacesAreNeverGranted() {
        PolicyCheck stock = stock();
        refused(member(stock, List.of("$SYS.REQ.SERVER.PING"), List.of(NONCE), in15min), ErrorCode.PERMISSION_DENIED,
                "pub.allow[0]: $SYS.REQ.SERVER.PING reaches $SYS.>, which is never granted");
        refused(member(stock, List.of("cotal.alpha.chat." + OWNER + ".laptop.x"), List.of(NONCE, ">"), in15min),
                ErrorCode.PERMISSION_DENIED, "sub.allow[1]: > reaches $SYS.>");
        refused(member(stock, List.of("cotal.beta.chat." + OWNER + ".laptop.x"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "reaches another space's prefix (only cotal.alpha.> is this space's)");
        refused(member(stock, List.of("cotal.*.chat." + OWNER + ".laptop.x"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "reaches another space's prefix");
        SignerPolicy forbidding = SignerPolicy.parse(("{\"ver\":1,\"space\":\"alpha\",\"account\":\"" + c.account.publicKey()
                + "\",\"profiles\":{\"callout-member\":{\"maxLifetimeSeconds\":900}},\"forbiddenSubjects\":"
                + "[\"cotal.alpha.chat.*.*.secret\"]}").getBytes(StandardCharsets.UTF_8));
        refused(member(check(forbidding), List.of("cotal.alpha.chat." + OWNER + ".laptop.secret"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "reaches the forbidden subject cotal.alpha.chat.*.*.secret");
    }

    @Test
    void aSideWithoutAnAllowListMustDenyEverythingAndBearerJwtsAreRefused() {
        PolicyCheck stock = stock();
        refused(stock.judge(c.input(c.user("x", null, Permission.allow(List.of(NONCE)), null, null, now, in15min)), now),
                ErrorCode.PERMISSION_DENIED, "pub: no allow list grants every subject");
        refused(stock.judge(c.input(c.user("x", Permission.allowDeny(List.of(), List.of("$SYS.>")),
                Permission.allow(List.of(NONCE)), null, null, now, in15min)), now), ErrorCode.PERMISSION_DENIED,
                "pub: no allow list");
        PolicyCheck.Verdict none = stock.judge(c.input(c.user("x", Permission.none(), Permission.allow(List.of(NONCE)),
                null, null, now, in15min)), now);
        assertTrue(none.signed(), "deny > is a member that publishes nothing");
        UserClaim bearer = new UserClaim(Permission.none(), Permission.allow(List.of(NONCE)), null, null, null, null, -1L,
                -1L, -1L, true, null, null, c.account.publicKey(), null);
        refused(stock.judge(c.input(ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), "x", bearer, now)
                .withExp(in15min)), now), ErrorCode.PERMISSION_DENIED, "bearer_token");
    }

    @Test
    void anotherIssuerAccountOrSigningKeyIsRefused() {
        NKeyPair other = NKeyPair.create(KeyType.ACCOUNT);
        UserClaim body = UserClaim.of(Permission.none(), Permission.allow(List.of(NONCE)), other.publicKey(), null);
        ClaimSet<UserClaim> claims = ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), "x", body, now).withExp(in15min);
        refused(stock().judge(c.input(claims), now), ErrorCode.PERMISSION_DENIED,
                "issuer_account: this signer serves account " + c.account.publicKey() + " only");
        ClaimSet<UserClaim> ours = c.user("x", Permission.none(), Permission.allow(List.of(NONCE)), null, null, now, in15min);
        refused(stock().judge(Claims.input(ours, other.publicKey()), now), ErrorCode.PERMISSION_DENIED,
                "iss: not this signer's signing key");
    }

    @Test
    void onlyUserClaimsAndWellFormedInputAreRead() {
        ClaimSet<AuthorizationResponseClaim> response = ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), null,
                new AuthorizationResponseClaim("x", null, c.account.publicKey(), null), now).withAud("NSERVER");
        refused(stock().judge(c.input(response), now), ErrorCode.BAD_REQUEST, "the signer signs user JWTs only");
        for (String garbage : List.of("hello", "a.b", "eyJ0eXAiOiJKV1QifQ.e30", "..", c.input(c.user("x", Permission.none(),
                Permission.allow(List.of(NONCE)), null, null, now, in15min)) + ".extra")) {
            PolicyCheck.Verdict verdict = stock().judge(garbage, now);
            assertEquals(ErrorCode.BAD_REQUEST, verdict.refusal().code(), garbage);
            assertFalse(verdict.refusal().getMessage().contains(garbage.length() > 8 ? garbage : "\u0000"),
                    "the input is not quoted back");
        }
    }

    @Test
    void grantsOutsideEveryProfileAreRefusedAndPlaceholdersNeverWiden() {
        PolicyCheck stock = stock();
        refused(member(stock, List.of("$JS.API.STREAM.DELETE.CHAT_alpha"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "permissions: match no profile of this signer");
        refused(member(stock, List.of("cotal.alpha.chat.*.*.general"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "match no profile");
        refused(member(stock, List.of("cotal.alpha.chat." + OWNER + ".laptop.>"), List.of(NONCE), in15min),
                ErrorCode.PERMISSION_DENIED, "match no profile");
        refused(member(stock, List.of("cotal.alpha.chat.u_someoneelseabcdefghijklmn.laptop.general"), List.of(NONCE),
                in15min), ErrorCode.PERMISSION_DENIED, "match no profile");
        NKeyPair user = NKeyPair.create(KeyType.USER);
        refused(stock.judge(c.input(c.userFor(user.publicKey(), Permission.allow(List.of(
                "$KV.cotal_records_alpha.svc.manager.abcdefghijklmnopqrstuvwxyz.>")), Permission.allow(List.of(
                "_INBOX_" + NKeyPair.create(KeyType.USER).publicKey() + ".>")), now, in15min)), now),
                ErrorCode.PERMISSION_DENIED, "match no profile");
        NKeyPair effect = NKeyPair.create(KeyType.USER); // an effect connection may write witnesses, never a fence row
        refused(stock.judge(c.input(c.userFor(effect.publicKey(), Permission.allow(List.of(
                "$KV.cotal_auth_alpha.svc.req.req-1", "$KV.cotal_auth_alpha.plane.fence.*")), Permission.allow(List.of(
                "_INBOX_" + effect.publicKey() + ".>")), now, in15min)), now), ErrorCode.PERMISSION_DENIED, "match no profile");
        refused(stock.judge(c.input(c.user("x", Permission.none(), Permission.allow(List.of(NONCE)),
                new ResponsePermission(5, 0), null, now, in15min)), now), ErrorCode.PERMISSION_DENIED, "match no profile");
    }

    @Test
    void lifetimesAreBoundedPerProfileFromTheSignersClock() {
        PolicyCheck stock = stock();
        List<String> pub = List.of("cotal.alpha.chat." + OWNER + ".laptop.general");
        refused(member(stock, pub, List.of(NONCE), now.getEpochSecond() + 3600), ErrorCode.PERMISSION_DENIED,
                "exp: a lifetime of 3600 s exceeds the bound of 900 s of profile callout-member");
        refused(member(stock, pub, List.of(NONCE), null), ErrorCode.PERMISSION_DENIED,
                "exp: missing; profile callout-member needs a bounded lifetime");
        ClaimSet<UserClaim> backdated = c.user("x", Permission.allow(pub), Permission.allow(List.of(NONCE)), null,
                Claims.principal(OWNER, "laptop"), now.minusSeconds(3600), in15min);
        refused(stock.judge(c.input(backdated), now), ErrorCode.PERMISSION_DENIED, "iat: more than 60 s from the signer's clock");
        assertTrue(member(stock, pub, List.of(NONCE), in15min).signed(), "900 s is within the bound");
    }

    @Test
    void policyFilesAreClosedAndBounded() {
        String account = c.account.publicKey();
        SignerPolicy policy = SignerPolicy.parse(("{\"ver\":1,\"space\":\"alpha\",\"account\":\"" + account + "\","
                + "\"profiles\":{\"auth-scan\":{\"maxLifetimeSeconds\":60,\"withoutExpiry\":true}},"
                + "\"maxClockSkewSeconds\":5}").getBytes(StandardCharsets.UTF_8));
        assertEquals(new SignerPolicy.Bound(60, true), policy.profiles().get(SignerProfile.AUTH_SCAN));
        assertTrue(policy.digest().startsWith("sha256:"));
        assertNull(policy.profiles().get(SignerProfile.CALLOUT_MEMBER));
        String head = "{\"ver\":1,\"space\":\"alpha\",\"account\":\"" + account + "\",";
        List<List<String>> bad = List.of(
                List.of(head + "\"profiles\":{\"teardown\":{\"maxLifetimeSeconds\":60}}}", "profiles.teardown"),
                List.of(head + "\"profiles\":{\"auth-scan\":{\"maxLifetimeSeconds\":0}}}", "profiles.auth-scan.maxLifetimeSeconds"),
                List.of(head + "\"profiles\":{\"auth-scan\":{}}}", "profiles.auth-scan.maxLifetimeSeconds"),
                List.of(head + "\"profiles\":{}}", "profiles"),
                List.of(head + "\"profiles\":{\"auth-scan\":{\"maxLifetimeSeconds\":60}},\"extra\":1}", "policy"),
                List.of(head + "\"profiles\":{\"auth-scan\":{\"maxLifetimeSeconds\":60}},\"forbiddenSubjects\":[\"a..b\"]}",
                        "forbiddenSubjects[0]"),
                List.of(head + "\"profiles\":{\"auth-scan\":{\"maxLifetimeSeconds\":60}},\"maxClockSkewSeconds\":301}",
                        "maxClockSkewSeconds"),
                List.of("{\"ver\":2,\"space\":\"alpha\",\"account\":\"" + account + "\",\"profiles\":{}}", "ver"),
                List.of("{\"ver\":1,\"space\":\"alpha\",\"account\":\"UABC\",\"profiles\":{}}", "account"));
        for (List<String> pair : bad) {
            CotalException e = assertThrows(CotalException.class, () -> SignerPolicy.parse(pair.get(0)
                    .getBytes(StandardCharsets.UTF_8)), pair.get(0));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().startsWith(pair.get(1)), e.getMessage());
        }
    }
}
