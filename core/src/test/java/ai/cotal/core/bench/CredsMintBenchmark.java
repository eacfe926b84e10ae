package ai.cotal.core.bench;

import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.SpaceAuth;
import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Credentials minted per second against the floor under them: raw Bouncy Castle Ed25519
 * signatures per second over a message as long as a minted JWT's signing input, in the same run.
 * jnats' {@code JwtUtils.issueUserJWT} is measured too, for comparison.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CredsMintBenchmark {
    private SpaceAuth auth;
    private Identity identity;
    private MintOptions options;
    private Ed25519PrivateKeyParameters rawKey;
    private byte[] signingInput;
    private NKey jnatsAccountKey;
    private String jnatsAccount;
    private String userPublicKey;

    @Setup
    public void setUp() throws Exception {
        auth = SpaceAuth.create("bench", Clock.systemUTC());
        identity = Identity.create();
        options = MintOptions.defaults();
        String jwt = Creds.mint(auth, identity, CredentialProfile.OBSERVER, options).jwt();
        signingInput = jwt.substring(0, jwt.lastIndexOf('.')).getBytes(StandardCharsets.US_ASCII);
        rawKey = new Ed25519PrivateKeyParameters(new java.security.SecureRandom());
        rawKey.generatePublicKey(); // caches the public point, as NKeyPair's constructor does
        jnatsAccountKey = NKey.fromSeed(auth.account().signing().seed().toCharArray());
        jnatsAccount = auth.account().accountPublicKey();
        userPublicKey = identity.id();
    }

    @Benchmark
    public Creds mintCreds() {
        return Creds.mint(auth, identity, CredentialProfile.OBSERVER, options);
    }

    @Benchmark
    public byte[] rawBouncyCastleSign() {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        rawKey.sign(Ed25519.Algorithm.Ed25519, null, signingInput, 0, signingInput.length, signature, 0);
        return signature;
    }

    @Benchmark
    public String jnatsIssueUserJwt() throws Exception {
        return JwtUtils.issueUserJWT(jnatsAccountKey, jnatsAccount, userPublicKey, "observer", Duration.ZERO);
    }
}
