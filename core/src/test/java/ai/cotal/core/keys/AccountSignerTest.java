package ai.cotal.core.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.OperatorClaim;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class AccountSignerTest {
    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    private final NKeyPair signing = NKeyPair.create(KeyType.ACCOUNT);
    private final ClaimSet<UserClaim> user = ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), "u",
            UserClaim.of(Permission.allow(List.of("a.>")), Permission.none(), null, List.of()), NOW);

    /** A signer of another kind than the default: {@code publicKey}, signing with {@code sign}. */
    private static AccountSigner signer(String publicKey, UnaryOperator<byte[]> sign) {
        return new AccountSigner() {
            @Override
            public String publicKey() {
                return publicKey;
            }

            @Override
            public byte[] sign(byte[] input) {
                return sign.apply(input);
            }
        };
    }

    @Test
    void theInMemorySignerSignsTheSameJwtAsItsKey() {
        assertEquals(NatsJwt.encode(user, signing), NatsJwt.encode(user, new InMemoryAccountSigner(signing)));
    }

    @Test
    void aSignerThatAnswersNoSignatureIsRefused() {
        for (byte[] wrong : new byte[][] {null, new byte[0], new byte[63], new byte[65]}) {
            CotalException e = assertThrows(CotalException.class, () -> NatsJwt.encode(user, signer(signing.publicKey(), input -> wrong)));
            assertEquals(ErrorCode.INTERNAL, e.code());
        }
    }

    @Test
    void anAccountSignerSignsNoOperatorClaim() {
        NKeyPair operator = NKeyPair.create(KeyType.OPERATOR);
        ClaimSet<OperatorClaim> claims = ClaimSet.of(operator.publicKey(), "op",
                OperatorClaim.withSystemAccount(signing.publicKey()), NOW);
        CotalException e = assertThrows(CotalException.class,
                () -> NatsJwt.encode(claims, new InMemoryAccountSigner(signing)));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
    }

    @Test
    void onlyAccountKeysSignForASpace() {
        assertThrows(CotalException.class, () -> new InMemoryAccountSigner(NKeyPair.create(KeyType.USER)));
        NKeyPair key = NKeyPair.create(KeyType.USER);
        AccountSigner userKey = signer(key.publicKey(), key::sign);
        CotalException e = assertThrows(CotalException.class, () -> new SpaceSigner("alpha",
                NKeyPair.create(KeyType.ACCOUNT).publicKey(), userKey));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
    }

    @Test
    void theInMemorySignerNeverPrintsItsSeed() {
        InMemoryAccountSigner signer = new InMemoryAccountSigner(signing);
        assertFalse(signer.toString().contains(signing.seed()));
        SpaceSigner space = new SpaceSigner("alpha", NKeyPair.create(KeyType.ACCOUNT).publicKey(), signer);
        assertFalse(space.toString().contains(signing.seed()));
    }
}
