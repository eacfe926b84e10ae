package ai.cotal.signer;

import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsClaim;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/** Signing inputs for the policy tests: what a caller of a signer would send, for a given claim. */
final class Claims {
    final NKeyPair account = NKeyPair.create(KeyType.ACCOUNT);
    final NKeyPair signing = NKeyPair.create(KeyType.ACCOUNT);

    /** The signing input {@link NatsJwt#encode} hands its signer for {@code claims}, signed by {@code key}. */
    static String input(ClaimSet<? extends NatsClaim> claims, String key) {
        String[] captured = new String[1];
        NatsJwt.encode(claims, new AccountSigner() {
            @Override
            public String publicKey() {
                return key;
            }

            @Override
            public byte[] sign(byte[] input) {
                captured[0] = new String(input, StandardCharsets.US_ASCII);
                return new byte[64];
            }
        });
        return captured[0];
    }

    String input(ClaimSet<? extends NatsClaim> claims) {
        return input(claims, signing.publicKey());
    }

    /** A user claim for a fresh user key, issued now, with the given grants. */
    ClaimSet<UserClaim> user(String name, Permission pub, Permission sub, ResponsePermission resp, List<String> tags,
            Instant now, Long exp) {
        UserClaim body = new UserClaim(pub, sub, resp, null, null, null, -1L, -1L, -1L, null, null, null,
                account.publicKey(), tags);
        return ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), name, body, now).withExp(exp);
    }

    /** A user claim whose {@code sub} is {@code user}. */
    ClaimSet<UserClaim> userFor(String user, Permission pub, Permission sub, Instant now, Long exp) {
        UserClaim body = UserClaim.of(pub, sub, account.publicKey(), null);
        return ClaimSet.of(user, "x", body, now).withExp(exp);
    }

    static List<String> principal(String owner, String actor) {
        return List.of("owner:" + owner, "actor:" + actor, "principal:" + owner + "." + actor);
    }
}
