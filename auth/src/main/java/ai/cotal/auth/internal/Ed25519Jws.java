package ai.cotal.auth.internal;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import java.util.Set;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Nimbus signer and verifier for EdDSA over Ed25519 through Bouncy Castle (Nimbus's own need
 * Tink). Only {@code EdDSA} and {@code Ed25519} are accepted: no other algorithm can be named.
 */
public final class Ed25519Jws {
    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.EdDSA, JWSAlgorithm.Ed25519);

    private Ed25519Jws() {
    }

    /** A signer for one private key. */
    public static JWSSigner signer(Ed25519PrivateKeyParameters key) {
        return new JWSSigner() {
            @Override
            public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
                check(header);
                byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
                key.sign(Ed25519.Algorithm.Ed25519, null, signingInput, 0, signingInput.length, signature, 0);
                return Base64URL.encode(signature);
            }

            @Override
            public Set<JWSAlgorithm> supportedJWSAlgorithms() {
                return ALGORITHMS;
            }

            @Override
            public JCAContext getJCAContext() {
                return new JCAContext();
            }
        };
    }

    /** A verifier for one public key (32 raw bytes). */
    public static JWSVerifier verifier(byte[] publicKey) {
        Ed25519PublicKeyParameters pub = new Ed25519PublicKeyParameters(publicKey, 0);
        return new JWSVerifier() {
            @Override
            public boolean verify(JWSHeader header, byte[] signingInput, Base64URL signature) throws JOSEException {
                check(header);
                byte[] sig = signature.decode();
                return sig.length == Ed25519.SIGNATURE_SIZE
                        && pub.verify(Ed25519.Algorithm.Ed25519, null, signingInput, 0, signingInput.length, sig, 0);
            }

            @Override
            public Set<JWSAlgorithm> supportedJWSAlgorithms() {
                return ALGORITHMS;
            }

            @Override
            public JCAContext getJCAContext() {
                return new JCAContext();
            }
        };
    }

    private static void check(JWSHeader header) throws JOSEException {
        if (!ALGORITHMS.contains(header.getAlgorithm())) {
            throw new JOSEException("only EdDSA (Ed25519) is accepted");
        }
    }
}
