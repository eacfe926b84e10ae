package ai.cotal.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signer process's library half and its client, without a broker (SPEC §16.1, §16.3). */
class SignerServerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final SpaceSigner inMemory = auth.strip();
    private final List<AutoCloseable> open = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private Path socket() {
        return dir.resolve("run").resolve("signer.sock");
    }

    private SignerServer start() {
        SignerServer server = SignerServer.start(SignerServerOptions.builder().signer(inMemory).socket(socket())
                .audit(dir.resolve("audit.jsonl")).build());
        open.add(server);
        return server;
    }

    private UnixSocketAccountSigner client(Duration timeout) {
        UnixSocketAccountSigner client = UnixSocketAccountSigner.builder().socket(socket())
                .publicKey(inMemory.signing().publicKey()).timeout(timeout).build();
        open.add(client);
        return client;
    }

    private ClaimSet<UserClaim> member(String publish, long lifetime) {
        String nonce = "_INBOX_abcdefghijklmnop-0123456789.>";
        UserClaim body = UserClaim.of(Permission.allow(List.of(publish)), Permission.allow(List.of(nonce)),
                inMemory.accountPublicKey(), List.of("owner:" + OWNER, "actor:laptop"));
        return ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), OWNER + "-laptop", body, clock.instant())
                .withExp(clock.instant().getEpochSecond() + lifetime);
    }

    private List<JsonNode> audit() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("audit.jsonl"))) {
            lines.add(new ObjectMapper().readTree(line));
        }
        return lines;
    }

    @Test
    void itSignsWhatThePolicyAdmitsRefusesTheRestAndAuditsBothWithoutASecret() throws Exception {
        start();
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(2));
        ClaimSet<UserClaim> claims = member("cotal.alpha.chat." + OWNER + ".laptop.general", 600);
        String jwt = NatsJwt.encode(claims, remote);
        assertEquals(NatsJwt.encode(claims, inMemory.signing()), jwt, "the bytes of signing with the key itself");
        assertEquals(claims.sub(), NatsJwt.decode(jwt).sub(), "it verifies against the signing key");
        CotalException refused = assertThrows(CotalException.class,
                () -> NatsJwt.encode(member("$SYS.REQ.SERVER.PING", 600), remote));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused.code());
        assertTrue(refused.getMessage().contains("reaches $SYS.>"), refused.getMessage());

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket().getParent())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("audit.jsonl"))));
        List<JsonNode> lines = audit();
        assertEquals("started", lines.get(0).path("event").asText());
        assertEquals("stock", lines.get(0).path("policy").asText());
        assertEquals("signed", lines.get(1).path("event").asText());
        assertEquals("callout-member", lines.get(1).path("profile").asText());
        assertEquals(claims.sub(), lines.get(1).path("sub").asText());
        assertTrue(lines.get(1).path("input").asText().startsWith("sha256:"));
        assertEquals("refused", lines.get(2).path("event").asText());
        assertEquals("permission-denied", lines.get(2).path("code").asText());
        assertTrue(lines.get(2).path("reason").asText().contains("$SYS.REQ.SERVER.PING"));
        String text = Files.readString(dir.resolve("audit.jsonl"));
        assertFalse(text.contains(auth.account().signing().seed()) || text.contains(jwt.substring(jwt.lastIndexOf('.') + 1)),
                "neither the seed nor a signature is in the log");
    }

    @Test
    void garbageAndOversizedFramesEndOnlyTheirOwnConnection() throws Exception {
        start();
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(2));
        NatsJwt.encode(member("cotal.alpha.chat." + OWNER + ".laptop.general", 600), remote); // a connection in use
        List<byte[]> garbage = List.of(ByteBuffer.allocate(4).putInt(0x7fffffff).array(),
                "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                ByteBuffer.allocate(14).putInt(10).put((byte) 1).put((byte) 7).putLong(1).array());
        for (byte[] bytes : garbage) {
            try (SocketChannel raw = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                raw.connect(UnixDomainSocketAddress.of(socket()));
                raw.write(ByteBuffer.wrap(bytes));
                assertTrue(closedUnanswered(raw), "the signer closed this connection unanswered");
            }
        }
        assertEquals(64, remote.sign(Claims.input(member("cotal.alpha.chat." + OWNER + ".laptop.x", 60),
                inMemory.signing().publicKey()).getBytes(StandardCharsets.US_ASCII)).length, "the other connection still signs");
        assertEquals(3, audit().stream().filter(l -> l.path("event").asText().equals("protocol")).count());
        CotalException tooLong = assertThrows(CotalException.class, () -> remote.sign(new byte[SignerFrames.MAX_INPUT + 1]));
        assertEquals(ErrorCode.BAD_REQUEST, tooLong.code(), "refused before anything is sent");
        CotalException notJwt = assertThrows(CotalException.class,
                () -> remote.sign("not a jwt".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(ErrorCode.BAD_REQUEST, notJwt.code(), notJwt.getMessage());
    }

    /** The peer closed: end of stream, or a reset when it closed with our bytes unread. */
    private static boolean closedUnanswered(SocketChannel raw) {
        try {
            return raw.read(ByteBuffer.allocate(16)) == -1;
        } catch (java.io.IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    /** A policy of plain members only, {@code rate} per principal and minute (0: none), with {@code clock}. */
    private SignerServer startRated(int rate, Clock at, long maxBytes, int keep) {
        SignerPolicy policy = SignerPolicy.parse(("{\"ver\":1,\"space\":\"alpha\",\"account\":\"" + inMemory.accountPublicKey()
                + "\",\"profiles\":{\"callout-member\":{\"maxLifetimeSeconds\":900,\"perPrincipalPerMinute\":" + rate
                + "}}}").getBytes(StandardCharsets.UTF_8));
        SignerServer server = SignerServer.start(SignerServerOptions.builder().signer(inMemory).socket(socket())
                .audit(dir.resolve("audit.jsonl")).policy(policy).clock(at).auditRotation(maxBytes, keep).build());
        open.add(server);
        return server;
    }

    private ClaimSet<UserClaim> memberAt(String actor, java.time.Instant now) {
        UserClaim body = UserClaim.of(Permission.allow(List.of("cotal.alpha.chat." + OWNER + "." + actor + ".general")),
                Permission.allow(List.of("_INBOX_abcdefghijklmnop-0123456789.>")), inMemory.accountPublicKey(),
                List.of("owner:" + OWNER, "actor:" + actor));
        return ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), OWNER + "-" + actor, body, now)
                .withExp(now.getEpochSecond() + 600);
    }

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        volatile java.time.Instant now = java.time.Instant.now();

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return now;
        }
    }

    @Test
    void aPrincipalIsRatedPerProfileAndMinuteAndItsRefusalsAreFoldedIntoOneRecord() throws Exception {
        MovingClock at = new MovingClock();
        startRated(3, at, SignerServerOptions.DEFAULT_AUDIT_MAX_BYTES, 1);
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(2));
        for (int i = 0; i < 3; i++) {
            NatsJwt.encode(memberAt("laptop", at.now), remote);
        }
        for (int i = 0; i < 3; i++) {
            CotalException rated = assertThrows(CotalException.class, () -> NatsJwt.encode(memberAt("laptop", at.now), remote));
            assertEquals(ErrorCode.PERMISSION_DENIED, rated.code());
            assertTrue(rated.getMessage().contains("rate: this principal had 3 signatures of profile callout-member in"
                    + " the last minute (limit 3 per principal per minute)"), rated.getMessage());
        }
        NatsJwt.encode(memberAt("phone", at.now), remote); // another principal has its own window
        at.now = at.now.plusSeconds(61);
        for (int i = 0; i < 3; i++) {
            NatsJwt.encode(memberAt("laptop", at.now), remote);
        }
        assertThrows(CotalException.class, () -> NatsJwt.encode(memberAt("laptop", at.now), remote));
        List<JsonNode> refusals = audit().stream().filter(l -> l.path("reason").asText().startsWith("rate: ")).toList();
        assertEquals(2, refusals.size(), "one record per principal and minute");
        assertTrue(refusals.get(0).path("folded").isMissingNode(), refusals.get(0).toString());
        assertEquals(2, refusals.get(1).path("folded").asLong(), "the two unrecorded refusals of the first minute");
        assertEquals(7, audit().stream().filter(l -> l.path("event").asText().equals("signed")).count());
    }

    @Test
    void theAuditLogRotatesAtItsBoundAndKeepsOnlyItsRetainedFiles() throws Exception {
        startRated(0, clock, 4096, 2);
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(2));
        for (int i = 0; i < 60; i++) { // about 30 KB of records, one at a time
            NatsJwt.encode(memberAt("laptop", clock.instant()), remote);
        }
        Path current = dir.resolve("audit.jsonl");
        Path first = dir.resolve("audit.jsonl.1");
        Path second = dir.resolve("audit.jsonl.2");
        assertFalse(Files.exists(dir.resolve("audit.jsonl.3")), "the oldest files are dropped");
        long seq = -1;
        for (Path file : List.of(second, first, current)) {
            assertTrue(Files.size(file) < 4096 + 1024, file.getFileName() + ": " + Files.size(file) + " bytes");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            for (String line : Files.readAllLines(file)) {
                long next = new ObjectMapper().readTree(line).path("seq").asLong();
                assertTrue(seq == -1 || next == seq + 1, "records run on across the files: " + seq + " then " + next);
                seq = next;
            }
        }
        assertTrue(seq >= 61, "the newest record is the last signature's: " + seq);
    }

    @Test
    void manyRequestsInFlightShareOneConnection() throws Exception {
        startRated(0, clock, SignerServerOptions.DEFAULT_AUDIT_MAX_BYTES, 1); // one principal, no rate
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(10));
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<String>> jwts = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String channel = "ch" + i;
                jwts.add(threads.submit(() -> NatsJwt.encode(member("cotal.alpha.chat." + OWNER + ".laptop." + channel, 600),
                        remote)));
            }
            for (Future<String> jwt : jwts) {
                NatsJwt.decode(jwt.get());
            }
        } finally {
            threads.shutdown();
        }
        assertEquals(400, audit().stream().filter(l -> l.path("event").asText().equals("signed")).count());
    }

    @Test
    void aSignerThatIsDownIsUnavailableAndARestartedOneIsUsedAgain() throws Exception {
        SignerServer first = start();
        UnixSocketAccountSigner remote = client(Duration.ofSeconds(2));
        ClaimSet<UserClaim> claims = member("cotal.alpha.chat." + OWNER + ".laptop.general", 600);
        NatsJwt.encode(claims, remote);
        first.close();
        CotalException down = assertThrows(CotalException.class, () -> NatsJwt.encode(claims, remote));
        assertEquals(ErrorCode.UNAVAILABLE, down.code(), down.getMessage());
        assertFalse(down.getMessage().contains(dir.toString()), "the socket's file name only: " + down.getMessage());
        start();
        NatsJwt.decode(NatsJwt.encode(claims, remote)); // the same client, connected again
    }

    @Test
    void aSecondSignerOnALiveSocketIsRefusedAndAStaleSocketIsReplaced() throws Exception {
        SignerServer first = start();
        CotalException busy = assertThrows(CotalException.class, () -> SignerServer.start(SignerServerOptions.builder()
                .signer(inMemory).socket(socket()).audit(dir.resolve("other.jsonl")).build()));
        assertEquals(ErrorCode.FAILED_PRECONDITION, busy.code());
        assertTrue(busy.getMessage().contains("another signer answers"), busy.getMessage());
        first.close();
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(socket())); // closed below without removing its file
        }
        assertTrue(Files.exists(socket()), "a stale socket file is left");
        start();
        assertEquals(inMemory.signing().publicKey(), UnixSocketAccountSigner.describe(socket(), Duration.ofSeconds(2))
                .signingKey());
    }

    @Test
    void aSocketGroupOpensTheDirectoryToTraverseAndTheSocketToReadAndWriteForThatGroupOnly() throws Exception {
        // this process's own primary group: the one group a test may hand files to without privileges
        java.nio.file.attribute.GroupPrincipal mine = Files.readAttributes(Files.createDirectory(dir.resolve("probe")),
                java.nio.file.attribute.PosixFileAttributes.class).group();
        SignerServer server = SignerServer.start(SignerServerOptions.builder().signer(inMemory).socket(socket())
                .audit(dir.resolve("audit.jsonl")).socketGroup(mine.getName()).build());
        open.add(server);
        java.nio.file.attribute.PosixFileAttributes directory = Files.readAttributes(socket().getParent(),
                java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        assertEquals("rwx--x---", java.nio.file.attribute.PosixFilePermissions.toString(directory.permissions()),
                "the group may reach the socket, not list the directory");
        assertEquals(mine, directory.group());
        java.nio.file.attribute.PosixFileAttributes sock = Files.readAttributes(socket(),
                java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        assertEquals("rw-rw----", java.nio.file.attribute.PosixFilePermissions.toString(sock.permissions()));
        assertEquals(mine, sock.group());
        assertEquals(inMemory.signing().publicKey(), UnixSocketAccountSigner.describe(socket(), Duration.ofSeconds(2))
                .signingKey(), "the signer answers on the group's socket");
        server.close();

        CotalException unknown = assertThrows(CotalException.class, () -> SignerServer.start(SignerServerOptions.builder()
                .signer(inMemory).socket(dir.resolve("other").resolve("signer.sock")).audit(dir.resolve("other.jsonl"))
                .socketGroup("no-such-group-cotal").build()));
        assertEquals(ErrorCode.FAILED_PRECONDITION, unknown.code());
        assertTrue(unknown.getMessage().startsWith("socket: "), unknown.getMessage());
    }

    @Test
    void theClientRefusesASignerWithAnotherKeyAndOneThatDoesNotAnswer() throws Exception {
        start();
        UnixSocketAccountSigner wrong = UnixSocketAccountSigner.builder().socket(socket())
                .publicKey(NKeyPair.create(KeyType.ACCOUNT).publicKey()).build();
        open.add(wrong);
        CotalException other = assertThrows(CotalException.class, () -> wrong.sign(new byte[] {'x'}));
        assertEquals(ErrorCode.FAILED_PRECONDITION, other.code(), other.getMessage());
        Path silent = dir.resolve("silent.sock");
        try (ServerSocketChannel mute = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            mute.bind(UnixDomainSocketAddress.of(silent));
            UnixSocketAccountSigner waiting = UnixSocketAccountSigner.builder().socket(silent)
                    .publicKey(inMemory.signing().publicKey()).timeout(Duration.ofMillis(200)).build();
            open.add(waiting);
            CotalException timeout = assertThrows(CotalException.class, () -> waiting.sign(new byte[] {'x'}));
            assertEquals(ErrorCode.UNAVAILABLE, timeout.code());
            assertTrue(timeout.getMessage().contains("no answer from socket silent.sock within 200 ms"), timeout.getMessage());
        }
    }

    @Test
    void buildersNameTheBadOption() {
        List<Runnable> bad = List.of(
                () -> UnixSocketAccountSigner.builder().publicKey(inMemory.signing().publicKey()).build(),
                () -> UnixSocketAccountSigner.builder().socket(socket()).publicKey("UABC").build(),
                () -> UnixSocketAccountSigner.builder().socket(socket()).publicKey(inMemory.signing().publicKey())
                        .timeout(Duration.ofMillis(10)).build(),
                () -> UnixSocketAccountSigner.builder().socket(dir.resolve("x".repeat(120))).publicKey(inMemory.signing()
                        .publicKey()).build(),
                () -> SignerServerOptions.builder().socket(socket()).audit(dir.resolve("a")).build(),
                () -> SignerServerOptions.builder().signer(inMemory).socket(socket()).audit(dir.resolve("a"))
                        .policy(SignerPolicy.stock("alpha", NKeyPair.create(KeyType.ACCOUNT).publicKey())).build(),
                () -> SignerServerOptions.builder().signer(inMemory).socket(socket()).build(),
                () -> SignerServerOptions.builder().signer(inMemory).socket(socket()).audit(dir.resolve("a"))
                        .auditRotation(100, 2).build(),
                () -> SignerServerOptions.builder().signer(inMemory).socket(socket()).audit(dir.resolve("a"))
                        .auditRotation(4096, 0).build());
        List<String> fields = List.of("socket", "publicKey", "timeout", "socket", "signer", "policy", "audit",
                "auditMaxBytes", "auditKeep");
        for (int i = 0; i < bad.size(); i++) {
            CotalException e = assertThrows(CotalException.class, bad.get(i)::run);
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().startsWith(fields.get(i) + ":"), e.getMessage());
        }
    }
}
