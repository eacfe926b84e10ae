package ai.cotal.core.jwt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NatsJwtTest {
    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    private final ClaimVerifier verifier = new ClaimVerifier(Clock.fixed(NOW, ZoneOffset.UTC));
    private final NKeyPair operator = NKeyPair.create(KeyType.OPERATOR);
    private final NKeyPair account = NKeyPair.create(KeyType.ACCOUNT);
    private final NKeyPair signing = NKeyPair.create(KeyType.ACCOUNT);
    private final NKeyPair user = NKeyPair.create(KeyType.USER);

    private ClaimSet<OperatorClaim> operatorClaims() {
        return NatsJwt.decode(NatsJwt.encode(ClaimSet.of(operator.publicKey(), "op",
                OperatorClaim.withSystemAccount(account.publicKey()), NOW), operator), OperatorClaim.class);
    }

    private ClaimSet<AccountClaim> accountClaims(Map<String, Long> revocations) {
        AccountClaim body = new AccountClaim(AccountLimits.unlimited(true), List.of(signing.publicKey()), revocations,
                null, null, null, null);
        return verifier.verifyAccount(NatsJwt.encode(ClaimSet.of(account.publicKey(), "space", body, NOW), operator),
                operatorClaims());
    }

    private String userJwt(NKeyPair signer, String issuerAccount, Instant iat) {
        return NatsJwt.encode(ClaimSet.of(user.publicKey(), "u", UserClaim.of(Permission.allow(List.of("a.>")),
                Permission.allow(List.of("_INBOX_x.>")), issuerAccount, List.of("t:1")), iat), signer);
    }

    private static String reencode(String token, int part, String json) {
        String[] parts = token.split("\\.");
        parts[part] = Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
        return String.join(".", parts);
    }

    /** Re-signs edited claims, so that only the edit can be the reason for a refusal. */
    private static String signRaw(String token, String json, NKeyPair signer) {
        String unsigned = reencode(token, 1, json);
        String input = unsigned.substring(0, unsigned.lastIndexOf('.'));
        return input + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(signer.sign(input.getBytes(StandardCharsets.US_ASCII)));
    }

    private static String claimsJson(String token) {
        return new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8);
    }

    @Test
    void everyClaimTypeRoundTrips() {
        ClaimSet<UserClaim> decoded = verifier.verifyUser(userJwt(signing, account.publicKey(), NOW), accountClaims(null));
        assertEquals(List.of("a.>"), decoded.nats().pub().allow());
        assertEquals(signing.publicKey(), decoded.iss());
        assertEquals(NOW.getEpochSecond(), decoded.iat());
        assertEquals(account.publicKey(), operatorClaims().nats().systemAccount());

        String response = NatsJwt.encode(ClaimSet.of(user.publicKey(), null,
                new AuthorizationResponseClaim("jwt-here", null, null, null), NOW).withAud("NSERVER"), account);
        assertEquals("jwt-here", NatsJwt.decode(response, AuthorizationResponseClaim.class).nats().jwt());
        String generic = NatsJwt.encode(ClaimSet.of(operator.publicKey(), null,
                new GenericClaim(List.of(account.publicKey())), NOW), operator);
        assertEquals(List.of(account.publicKey()), NatsJwt.decode(generic, GenericClaim.class).nats().accounts());
        NKeyPair server = NKeyPair.create(KeyType.SERVER);
        String request = NatsJwt.encode(ClaimSet.of(account.publicKey(), null, new AuthorizationRequestClaim(
                new AuthorizationRequestClaim.ServerId("s", "h", server.publicKey(), "2.15.1", null, null, "X"),
                user.publicKey(), null, new AuthorizationRequestClaim.ConnectOptions(null, null, null, "secret-token",
                null, null, null, "java", "2.26.2", 1), null, null, null), NOW), server);
        ClaimSet<AuthorizationRequestClaim> req = NatsJwt.decode(request, AuthorizationRequestClaim.class);
        assertEquals("secret-token", req.nats().connectOpts().authToken());
        assertTrue(!req.toString().contains("secret-token"), "toString leaks the client's token");
    }

    @Test
    void wireFormatCarriesTypeVersionAndSnakeCase() {
        String json = claimsJson(userJwt(signing, account.publicKey(), NOW));
        assertTrue(json.contains("\"type\":\"user\""), json);
        assertTrue(json.contains("\"version\":2"), json);
        assertTrue(json.contains("\"issuer_account\":\"" + account.publicKey() + "\""), json);
        String header = new String(Base64.getUrlDecoder().decode(userJwt(signing, null, NOW).split("\\.")[0]),
                StandardCharsets.UTF_8);
        assertEquals("{\"typ\":\"JWT\",\"alg\":\"ed25519-nkey\"}", header);
    }

    @Test
    void jtiDependsOnTheWholeClaimIncludingTheNatsBody() {
        ClaimSet<AccountClaim> base = ClaimSet.of(account.publicKey(), "space",
                new AccountClaim(AccountLimits.unlimited(true), null, null, null, null, null, null), NOW);
        ClaimSet<AccountClaim> retired = ClaimSet.of(account.publicKey(), "space",
                new AccountClaim(AccountLimits.unlimited(true).withConn(0), null, null, null, null, null, null), NOW);
        String a = NatsJwt.decode(NatsJwt.encode(base, operator)).jti();
        String b = NatsJwt.decode(NatsJwt.encode(retired, operator)).jti();
        assertNotEquals(a, b);
        assertEquals(a, NatsJwt.decode(NatsJwt.encode(base, operator)).jti(), "the same claim hashes the same");
    }

    @Test
    void aFlippedSignatureByteIsRefused() {
        String token = userJwt(signing, account.publicKey(), NOW);
        String[] parts = token.split("\\.");
        byte[] sig = Base64.getUrlDecoder().decode(parts[2]);
        sig[10] ^= 0x01;
        String forged = parts[0] + "." + parts[1] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
        CotalException e = assertThrows(CotalException.class, () -> NatsJwt.decode(forged));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().contains("jwt.signature"), e.getMessage());
    }

    @Test
    void algNoneIsRefused() {
        String token = reencode(userJwt(signing, account.publicKey(), NOW), 0, "{\"typ\":\"JWT\",\"alg\":\"none\"}");
        CotalException e = assertThrows(CotalException.class, () -> NatsJwt.decode(token));
        assertTrue(e.getMessage().startsWith("jwt.header.alg"), e.getMessage());
        String unsigned = token.substring(0, token.lastIndexOf('.') + 1);
        assertThrows(CotalException.class, () -> NatsJwt.decode(unsigned));
    }

    @Test
    void aUserSignedByAForeignAccountIsRefused() {
        NKeyPair foreign = NKeyPair.create(KeyType.ACCOUNT);
        CotalException e = assertThrows(CotalException.class,
                () -> verifier.verifyUser(userJwt(foreign, foreign.publicKey(), NOW), accountClaims(null)));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().startsWith("iss:"), e.getMessage());
        assertThrows(CotalException.class, () -> verifier.verifyUser(userJwt(signing, null, NOW), accountClaims(null)),
                "a signing-key user without issuer_account");
    }

    @Test
    void anAccountFromAnotherOperatorIsRefused() {
        NKeyPair other = NKeyPair.create(KeyType.OPERATOR);
        String token = NatsJwt.encode(ClaimSet.of(account.publicKey(), "x",
                new AccountClaim(AccountLimits.unlimited(false), null, null, null, null, null, null), NOW), other);
        assertThrows(CotalException.class, () -> verifier.verifyAccount(token, operatorClaims()));
    }

    @Test
    void anExpiredClaimIsRefusedAndTheToleranceIsStated() {
        ClaimSet<AccountClaim> account = accountClaims(null);
        String expired = NatsJwt.encode(ClaimSet.of(user.publicKey(), "u", UserClaim.of(null, null, this.account.publicKey(), null),
                NOW.minusSeconds(600)).withExp(NOW.getEpochSecond() - 10), signing);
        CotalException e = assertThrows(CotalException.class, () -> verifier.verifyUser(expired, account));
        assertTrue(e.getMessage().startsWith("exp:"), e.getMessage());
        String withinSkew = NatsJwt.encode(ClaimSet.of(user.publicKey(), "u", UserClaim.of(null, null, this.account.publicKey(), null),
                NOW.minusSeconds(600)).withExp(NOW.getEpochSecond() - ClaimVerifier.DEFAULT_SKEW.toSeconds() + 1), signing);
        verifier.verifyUser(withinSkew, account);
    }

    @Test
    void aNotBeforeInTheFutureIsRefused() {
        String early = NatsJwt.encode(ClaimSet.of(user.publicKey(), "u", UserClaim.of(null, null, account.publicKey(), null),
                NOW).withNbf(NOW.getEpochSecond() + 60), signing);
        CotalException e = assertThrows(CotalException.class, () -> verifier.verifyUser(early, accountClaims(null)));
        assertTrue(e.getMessage().startsWith("nbf:"), e.getMessage());
    }

    @Test
    void anUnknownClaimTypeIsRefused() {
        String token = userJwt(signing, account.publicKey(), NOW);
        String json = claimsJson(token).replace("\"type\":\"user\"", "\"type\":\"activation\"");
        CotalException e = assertThrows(CotalException.class, () -> NatsJwt.decode(signRaw(token, json, signing)));
        assertTrue(e.getMessage().startsWith("jwt.claims.nats.type"), e.getMessage());
    }

    @Test
    void unknownFieldsAreRefusedByTheClosedParser() {
        String token = userJwt(signing, account.publicKey(), NOW);
        String json = claimsJson(token).replace("\"version\":2", "\"version\":2,\"surprise\":true");
        CotalException e = assertThrows(CotalException.class, () -> NatsJwt.decode(signRaw(token, json, signing)));
        assertTrue(e.getMessage().contains("surprise"), e.getMessage());
    }

    @Test
    void revokedUsersAreRefused() {
        ClaimSet<AccountClaim> revoking = accountClaims(Map.of("*", NOW.getEpochSecond()));
        assertThrows(CotalException.class, () -> verifier.verifyUser(userJwt(signing, account.publicKey(), NOW), revoking));
        verifier.verifyUser(userJwt(signing, account.publicKey(), NOW.plusSeconds(1)), accountClaims(Map.of("*", NOW.getEpochSecond())));
    }

    @Test
    void encodeRefusesTheWrongSignerOrSubject() {
        CotalException e = assertThrows(CotalException.class, () -> userJwt(operator, null, NOW));
        assertTrue(e.getMessage().startsWith("signer:"), e.getMessage());
        assertThrows(CotalException.class, () -> NatsJwt.encode(ClaimSet.of(account.publicKey(), "u",
                UserClaim.of(null, null, null, null), NOW), signing));
    }
}
