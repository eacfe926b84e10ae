package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.BooleanSupplier;

/**
 * A space's signer that refuses one signature of a role's connection JWT, chosen by the claim's
 * own name: the standing connections open and renew side by side, so only the name says whose
 * renewal a signature is. {@code refuseNow} is asked for each of that role's signatures.
 */
final class RefusingSigner {
    private RefusingSigner() {
    }

    static SpaceSigner refusing(SpaceSigner signer, AuthorityRole role, BooleanSupplier refuseNow) {
        AccountSigner signing = signer.signing();
        String name = "\"name\":\"" + role.connectionName(signer.space()) + "\"";
        return new SpaceSigner(signer.space(), signer.accountPublicKey(), new AccountSigner() {
            @Override
            public String publicKey() {
                return signing.publicKey();
            }

            @Override
            public byte[] sign(byte[] input) {
                String text = new String(input, StandardCharsets.US_ASCII);
                String payload = new String(Base64.getUrlDecoder().decode(text.substring(text.indexOf('.') + 1)),
                        StandardCharsets.UTF_8);
                if (payload.contains(name) && refuseNow.getAsBoolean()) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "injected: the signer failed the "
                            + role.connectionName(signer.space()) + " renewal");
                }
                return signing.sign(input);
            }
        });
    }
}
