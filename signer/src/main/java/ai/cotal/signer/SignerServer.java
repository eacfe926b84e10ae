package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote signer (SPEC §16): holds a space's data-account signing key and signs, over a Unix
 * domain socket, only the user JWTs its {@link SignerPolicy} admits; every answer is in the audit
 * log before it is sent. It never sends the seed. {@code cotal-auth signer} runs one; an embedder
 * (or a test) may run one on its own threads. Thread-safe; {@link #close()} stops accepting, lets
 * the requests being signed finish (up to 5 s), closes every connection, writes the stop record
 * and removes the socket.
 */
public final class SignerServer implements AutoCloseable {
    static final int MAX_CONNECTIONS = 32;
    static final int SIGNING_THREADS = 4;
    private static final Logger LOG = LoggerFactory.getLogger(SignerServer.class);

    private final SignerServerOptions options;
    private final ServerSocketChannel listener;
    private final AuditLog audit;
    private final PolicyCheck check;
    private final byte[] description;
    private final ExecutorService pool;
    private final Set<SignerConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final PrincipalRate rate = new PrincipalRate();
    private final Thread acceptor;
    private volatile boolean closing;

    private SignerServer(SignerServerOptions options, ServerSocketChannel listener, AuditLog audit) {
        this.options = options;
        this.listener = listener;
        this.audit = audit;
        this.check = new PolicyCheck(options.policy(), options.signer().signing().publicKey());
        this.description = SignerFrames.description(options.signer().space(), options.signer().accountPublicKey(),
                options.signer().signing().publicKey());
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(SIGNING_THREADS, r -> {
            Thread t = new Thread(r, "cotal-signer-sign-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.acceptor = new Thread(this::accept, "cotal-signer-accept");
        this.acceptor.setDaemon(true);
    }

    /**
     * Starts a signer: prepares the socket's private directory, refuses a socket another signer
     * answers on (a stale one is removed), opens the audit log, binds and makes the socket 0600
     * (0660 with a socket group), records the start. {@code failed-precondition} when any of it
     * cannot be done; nothing is left listening then.
     */
    public static SignerServer start(SignerServerOptions options) {
        Path socket = options.socket();
        prepareDirectory(socket.getParent(), options.socketGroup().orElse(null));
        clearStale(socket);
        AuditLog audit = AuditLog.open(options.audit(), options.clock(), options.auditMaxBytes(),
                options.auditKeep());
        ServerSocketChannel listener = null;
        try {
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(socket));
            // by path (chmod): a socket cannot be opened to change its mode, and the private directory holds no link
            PosixFileAttributeView view = Files.getFileAttributeView(socket, PosixFileAttributeView.class);
            if (options.socketGroup().isPresent()) {
                view.setGroup(group(options.socketGroup().get()));
                view.setPermissions(PosixFilePermissions.fromString("rw-rw----"));
            } else {
                view.setPermissions(PosixFilePermissions.fromString("rw-------"));
            }
            SignerServer server = new SignerServer(options, listener, audit);
            SignerPolicy policy = options.policy();
            audit.record(new AuditLog.Entry(null, null, "started", null, null, null, null, null, null, null, null, null,
                    null, options.signer().space(), options.signer().accountPublicKey(),
                    options.signer().signing().publicKey(), policy.digest(), null));
            server.acceptor.start();
            LOG.info("signer: space {} signs for {} at {} ({} policy)", options.signer().space(),
                    options.signer().signing().publicKey(), socket.getFileName(), policy.digest());
            return server;
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                try {
                    listener.close();
                    Files.deleteIfExists(socket);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            audit.close();
            if (e instanceof CotalException c) {
                throw c;
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: cannot listen on " + socket.getFileName()
                    + " (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static void prepareDirectory(Path dir, String group) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                if (!Files.isDirectory(dir.getParent())) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: its directory's parent does not exist");
                }
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            PrivateFiles.requirePrivateDirectory(dir, "socket directory");
            if (group != null) {
                PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                view.setGroup(group(group));
                view.setPermissions(PosixFilePermissions.fromString("rwx--x---"));
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: its directory cannot be prepared ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static GroupPrincipal group(String name) throws IOException {
        return java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByGroupName(name);
    }

    /** Refuses a socket another signer answers on; removes a stale one (nothing answers). */
    private static void clearStale(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isRegularFile(socket, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(socket, LinkOption.NOFOLLOW_LINKS)
                || Files.isSymbolicLink(socket)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: " + socket.getFileName()
                    + " exists and is not a socket; refused");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: another signer answers on "
                    + socket.getFileName() + "; refused");
        } catch (ConnectException e) {
            try {
                Files.delete(socket);
            } catch (IOException gone) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: the stale socket cannot be removed", gone);
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "socket: the existing socket cannot be probed ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    private void accept() {
        while (!closing) {
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closing) {
                    return;
                }
                LOG.warn("signer: accept failed ({})", e.getClass().getSimpleName());
                continue;
            }
            String peer = peer(channel);
            if (connections.size() >= MAX_CONNECTIONS) {
                protocolViolation("connections: more than " + MAX_CONNECTIONS + " at once; closed", peer);
                try {
                    channel.close();
                } catch (IOException e) {
                    // already gone
                }
                continue;
            }
            SignerConnection connection = new SignerConnection(this, channel, peer, accepted.incrementAndGet());
            connections.add(connection);
            connection.start();
        }
    }

    private static String peer(SocketChannel channel) {
        try {
            return channel.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    void protocolViolation(String reason, String peer) {
        try {
            audit.record(new AuditLog.Entry(null, null, "protocol", ErrorCode.BAD_REQUEST.wire(), reason, null, null, null,
                    null, null, null, null, peer, null, null, null, null, null));
        } catch (CotalException e) {
            LOG.warn("signer: a protocol violation could not be audited: {}", reason);
        }
    }

    void closed(SignerConnection connection) {
        connections.remove(connection);
    }

    PolicyCheck check() {
        return check;
    }

    PrincipalRate rate() {
        return rate;
    }

    /** The policy's bound of {@code profile} (one the check admitted, so the policy lists it). */
    SignerPolicy.Bound policyBound(SignerProfile profile) {
        return options.policy().profiles().get(profile);
    }

    AuditLog audit() {
        return audit;
    }

    AccountSigner signer() {
        return options.signer().signing();
    }

    Clock clock() {
        return options.clock();
    }

    ExecutorService pool() {
        return pool;
    }

    byte[] descriptionBytes() {
        return description.clone();
    }

    /** What this signer answers to a describe request: public keys only. */
    public SignerDescription description() {
        return new SignerDescription(options.signer().space(), options.signer().accountPublicKey(),
                options.signer().signing().publicKey());
    }

    /** The socket it listens on. */
    public Path socket() {
        return options.socket();
    }

    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("signer: closing the listener: {}", e.getClass().getSimpleName());
        }
        pool.shutdown();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SignerConnection connection : Set.copyOf(connections)) {
            connection.close();
        }
        audit.close();
        try {
            Files.deleteIfExists(options.socket());
        } catch (IOException e) {
            LOG.warn("signer: the socket {} could not be removed", options.socket().getFileName());
        }
    }

    @Override
    public String toString() {
        return "SignerServer[" + options.signer().space() + ", " + options.signer().signing().publicKey() + "]";
    }
}
