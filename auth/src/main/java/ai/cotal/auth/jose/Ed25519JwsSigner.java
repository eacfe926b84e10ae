package ai.cotal.auth.jose;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import java.util.Objects;
import java.util.Set;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * A Nimbus {@link JWSSigner} for EdDSA over Ed25519, computed by Bouncy Castle (Nimbus's own
 * Ed25519 signer needs Tink). It signs only headers naming {@code EdDSA} or {@code Ed25519}; any
 * other algorithm is refused with a {@link JOSEException}. The SDK signs its bearers with it; an
 * embedder's own identity provider, or a test's, can sign ID tokens with it.
 *
 * <p>Thread-safe. It holds the private key and never prints it.
 */
public final class Ed25519JwsSigner implements JWSSigner {
    private final Ed25519PrivateKeyParameters key;

    /** A signer for one private key. */
    public Ed25519JwsSigner(Ed25519PrivateKeyParameters key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    @Override
    public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
        Ed25519JwsVerifier.requireEdDsa(header);
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        key.sign(Ed25519.Algorithm.Ed25519, null, signingInput, 0, signingInput.length, signature, 0);
        return Base64URL.encode(signature);
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
        return Ed25519JwsVerifier.ALGORITHMS;
    }

    @Override
    public JCAContext getJCAContext() {
        return new JCAContext();
    }

    @Override
    public String toString() {
        return "Ed25519JwsSigner";
    }
}
