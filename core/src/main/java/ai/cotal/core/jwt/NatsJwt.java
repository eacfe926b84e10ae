package ai.cotal.core.jwt;

import ai.cotal.core.CotalException;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.NKeyPair;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.function.UnaryOperator;


/**
 * Encodes and decodes NATS JWT v2: {@code base64url(header).base64url(claims).base64url(sig)}
 * without padding, header {@code {"typ":"JWT","alg":"ed25519-nkey"}}, Ed25519 over the first two
 * parts. The {@code jti} is content-dependent: base32 of SHA-256 over the claims as written
 * without {@code jti}, {@code nats} body included, so two different claims never share one (the
 * full resolver keeps an old claim whose jti equals the new one's).
 *
 * <p>{@link #decode} checks structure, header, key types and the signature; it does not check
 * times or the issuer chain: that is {@link ClaimVerifier}'s job. Stateless and thread-safe.
 */
public final class NatsJwt {
    private static final ObjectMapper JSON = ClosedJson.nats();
    private static final byte[] HEADER = Base64.getUrlEncoder().withoutPadding()
            .encode("{\"typ\":\"JWT\",\"alg\":\"ed25519-nkey\"}".getBytes(StandardCharsets.UTF_8));
    private static final long MAX_SAFE = (1L << 53) - 1;
    private static final int SIGNATURE_SIZE = 64;

    private NatsJwt() {
    }

    /** The envelope as read from the wire, before the body is typed. */
    private record Envelope(String jti, Long iat, String iss, String name, String sub, String aud, Long exp,
            Long nbf, JsonNode nats) {
    }

    private record Header(String typ, String alg) {
    }

    /**
     * Signs {@code claims} with {@code signer}: sets {@code iss} to the signer's public key and
     * computes {@code jti}. Refuses a signer or subject of the wrong key type for the claim type.
     */
    public static String encode(ClaimSet<?> claims, NKeyPair signer) {
        return encode(claims, signer.type(), signer.publicKey(), signer::sign);
    }

    /**
     * Signs {@code claims} with an account's signing key wherever it is kept (an account claim or
     * a user claim): sets {@code iss} to the signer's public key and computes {@code jti}. The
     * bytes are the same as signing with the key itself.
     */
    public static String encode(ClaimSet<?> claims, AccountSigner signer) {
        return encode(claims, KeyType.ACCOUNT, signer.publicKey(), signer::sign);
    }

    private static String encode(ClaimSet<?> claims, KeyType signerType, String signerKey,
            UnaryOperator<byte[]> sign) {
        ClaimType type = claims.type();
        if (signerType != type.issuer()) {
            throw CotalException.badRequest("signer", "a " + type.wire() + " claim is signed by a "
                    + type.issuer().name().toLowerCase(java.util.Locale.ROOT) + " key, not a "
                    + signerType.name().toLowerCase(java.util.Locale.ROOT) + " key");
        }
        checkSubject(type, claims.sub());
        if (type == ClaimType.OPERATOR && !claims.sub().equals(signerKey)) {
            throw CotalException.badRequest("sub", "an operator claim is self-signed: sub must be the signer");
        }
        checkTime("iat", claims.iat());
        if (claims.exp() != null) {
            checkTime("exp", claims.exp());
        }
        if (claims.nbf() != null) {
            checkTime("nbf", claims.nbf());
        }
        ObjectNode body = body(claims);
        String jti = NKeyCodec.base32(sha256(ClosedJson.write(JSON, tree(claims, signerKey, null, body))));
        byte[] payload = Base64.getUrlEncoder().withoutPadding().encode(
                ClosedJson.write(JSON, tree(claims, signerKey, jti, body)));
        byte[] signingInput = new byte[HEADER.length + 1 + payload.length];
        System.arraycopy(HEADER, 0, signingInput, 0, HEADER.length);
        signingInput[HEADER.length] = '.';
        System.arraycopy(payload, 0, signingInput, HEADER.length + 1, payload.length);
        byte[] signed = sign.apply(signingInput);
        if (signed == null || signed.length != SIGNATURE_SIZE) {
            throw CotalException.internal("the signer of " + signerKey + " answered no 64-byte Ed25519 signature", null);
        }
        String signature = Base64.getUrlEncoder().withoutPadding().encodeToString(signed);
        return new String(signingInput, StandardCharsets.US_ASCII) + "." + signature;
    }

    /** The {@code nats} object of a claim set: its body, type and version (built once per encode). */
    private static ObjectNode body(ClaimSet<?> claims) {
        ObjectNode body = JSON.valueToTree(claims.nats());
        body.put("type", claims.type().wire());
        body.put("version", 2);
        return body;
    }

    private static ObjectNode tree(ClaimSet<?> claims, String iss, String jti, ObjectNode body) {
        ObjectNode root = JSON.createObjectNode();
        if (jti != null) {
            root.put("jti", jti);
        }
        root.put("iat", claims.iat());
        root.put("iss", iss);
        if (claims.name() != null) {
            root.put("name", claims.name());
        }
        root.put("sub", claims.sub());
        if (claims.aud() != null) {
            root.put("aud", claims.aud());
        }
        if (claims.exp() != null) {
            root.put("exp", claims.exp());
        }
        if (claims.nbf() != null) {
            root.put("nbf", claims.nbf());
        }
        root.set("nats", body);
        return root;
    }

    /** Decodes and verifies the signature of any supported claim type. */
    public static ClaimSet<NatsClaim> decode(String token) {
        if (token == null || token.isEmpty()) {
            throw CotalException.badRequest("jwt", "missing");
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw CotalException.badRequest("jwt", "not three dot-separated parts");
        }
        return decode(parts, true);
    }

    /**
     * Decodes the signing input of a JWT, {@code b64url(header) "." b64url(claims)}, as a signer
     * receives it before it signs: the same closed checks as {@link #decode} (header, claims, key
     * types, times), without a signature to verify. A signer that applies a policy reads the
     * claims with it.
     */
    public static ClaimSet<NatsClaim> decodeSigningInput(String signingInput) {
        if (signingInput == null || signingInput.isEmpty()) {
            throw CotalException.badRequest("jwt", "missing");
        }
        String[] parts = signingInput.split("\\.", -1);
        if (parts.length != 2) {
            throw CotalException.badRequest("jwt", "not two dot-separated parts (a signing input)");
        }
        return decode(parts, false);
    }

    private static ClaimSet<NatsClaim> decode(String[] parts, boolean signed) {
        Header header = ClosedJson.read(JSON, base64("jwt.header", parts[0]), Header.class, "jwt.header");
        if (header.typ() == null || !header.typ().equalsIgnoreCase("JWT")) {
            throw CotalException.badRequest("jwt.header.typ", "must be JWT");
        }
        if (!"ed25519-nkey".equals(header.alg()) && !"ed25519".equals(header.alg())) {
            throw CotalException.badRequest("jwt.header.alg", "must be ed25519-nkey");
        }
        Envelope envelope = ClosedJson.read(JSON, base64("jwt.claims", parts[1]), Envelope.class, "jwt.claims");
        if (envelope.iat() == null) {
            throw CotalException.badRequest("jwt.claims.iat", "missing");
        }
        checkTime("jwt.claims.iat", envelope.iat());
        if (envelope.exp() != null) {
            checkTime("jwt.claims.exp", envelope.exp());
        }
        if (envelope.nbf() != null) {
            checkTime("jwt.claims.nbf", envelope.nbf());
        }
        if (!(envelope.nats() instanceof ObjectNode body)) {
            throw CotalException.badRequest("jwt.claims.nats", "missing or not an object");
        }
        ClaimType type = ClaimType.ofWire(textField(body, "type"));
        if (type == null) {
            throw CotalException.badRequest("jwt.claims.nats.type", "unknown claim type");
        }
        JsonNode version = body.get("version");
        if (version == null || !version.isIntegralNumber() || version.asLong() != 2) {
            throw CotalException.badRequest("jwt.claims.nats.version", "must be 2");
        }
        if (envelope.iss() == null || NKeyCodec.typeOfPublic(envelope.iss(), "jwt.claims.iss") != type.issuer()) {
            throw CotalException.badRequest("jwt.claims.iss", "a " + type.wire() + " claim must be issued by a "
                    + type.issuer().name().toLowerCase(java.util.Locale.ROOT) + " key");
        }
        checkSubject(type, envelope.sub());
        if (signed) {
            byte[] signature = base64("jwt.signature", parts[2]);
            byte[] signingInput = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
            if (!NKeyPair.verify(envelope.iss(), signingInput, signature)) {
                throw CotalException.unauthenticated("jwt.signature: does not verify with the issuer key");
            }
        }
        ObjectNode typed = body.deepCopy();
        typed.remove("type");
        typed.remove("version");
        NatsClaim nats = ClosedJson.convert(JSON, typed, type.body(), "jwt.claims.nats");
        return new ClaimSet<>(envelope.jti(), envelope.iat(), envelope.iss(), envelope.name(), envelope.sub(),
                envelope.aud(), envelope.exp(), envelope.nbf(), nats);
    }

    /** Decodes a token that must be of {@code type}'s claim type. */
    @SuppressWarnings("unchecked")
    public static <C extends NatsClaim> ClaimSet<C> decode(String token, Class<C> type) {
        ClaimSet<NatsClaim> claims = decode(token);
        if (!type.isInstance(claims.nats())) {
            throw CotalException.badRequest("jwt.claims.nats.type", "expected " + type.getSimpleName()
                    + ", got " + claims.type().wire());
        }
        return (ClaimSet<C>) claims;
    }

    private static void checkSubject(ClaimType type, String sub) {
        if (sub == null || sub.isEmpty()) {
            throw CotalException.badRequest("sub", "missing");
        }
        KeyType subject = NKeyCodec.typeOfPublic(sub, "sub");
        if (type.subject() != null && subject != type.subject()) {
            throw CotalException.badRequest("sub", "a " + type.wire() + " claim's subject must be a "
                    + type.subject().name().toLowerCase(java.util.Locale.ROOT) + " key");
        }
    }

    private static void checkTime(String field, long seconds) {
        if (seconds < 0 || seconds > MAX_SAFE) {
            throw CotalException.badRequest(field, "out of range");
        }
    }

    private static String textField(ObjectNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    private static byte[] base64(String field, String part) {
        if (part.isEmpty() || part.indexOf('=') >= 0) {
            throw CotalException.badRequest(field, "not unpadded base64url");
        }
        try {
            return Base64.getUrlDecoder().decode(part);
        } catch (IllegalArgumentException e) {
            throw CotalException.badRequest(field, "not base64url");
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }

}
