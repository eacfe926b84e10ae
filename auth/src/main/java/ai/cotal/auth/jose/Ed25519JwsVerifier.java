package ai.cotal.auth.jose;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import java.util.Objects;
import java.util.Set;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * A Nimbus {@link JWSVerifier} for EdDSA over Ed25519, computed by Bouncy Castle. It verifies
 * only headers naming {@code EdDSA} or {@code Ed25519} (anything else is a {@link JOSEException},
 * never a silent pass) and only 64-byte signatures.
 *
 * <p>Thread-safe and immutable.
 */
public final class Ed25519JwsVerifier implements JWSVerifier {
    static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.EdDSA, JWSAlgorithm.Ed25519);

    private final Ed25519PublicKeyParameters publicKey;

    /**
     * A verifier for one public key.
     *
     * @param publicKey the 32 raw bytes of the Ed25519 public key (a JWK's decoded {@code x})
     */
    public Ed25519JwsVerifier(byte[] publicKey) {
        this.publicKey = new Ed25519PublicKeyParameters(Objects.requireNonNull(publicKey, "publicKey"), 0);
    }

    @Override
    public boolean verify(JWSHeader header, byte[] signingInput, Base64URL signature) throws JOSEException {
        requireEdDsa(header);
        byte[] sig = signature.decode();
        return sig.length == Ed25519.SIGNATURE_SIZE
                && publicKey.verify(Ed25519.Algorithm.Ed25519, null, signingInput, 0, signingInput.length, sig, 0);
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
        return ALGORITHMS;
    }

    @Override
    public JCAContext getJCAContext() {
        return new JCAContext();
    }

    static void requireEdDsa(JWSHeader header) throws JOSEException {
        if (!ALGORITHMS.contains(header.getAlgorithm())) {
            throw new JOSEException("only EdDSA (Ed25519) is accepted");
        }
    }
}
