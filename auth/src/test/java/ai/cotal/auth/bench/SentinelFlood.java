package ai.cotal.auth.bench;

import io.nats.client.AuthHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Raw NATS connects with the public sentinel credential and no bearer, on loopback, one thread,
 * non-blocking: it keeps {@code inFlight} connects under way, each reading INFO, sending CONNECT
 * (the sentinel's JWT and its signature of the nonce, no {@code auth_token}) and PING, and closing
 * at the broker's first answer ({@code -ERR}, or {@code PONG} if it ever admitted one); then it
 * opens the next. Counts connects and their answers by how long they took. Stops at {@link #close()}.
 * {@link #main} runs it as a process of its own (the scenario's flooder): {@code <host> <port>
 * <inFlight> <credsFile> <seconds>}; it prints its counts at the end.
 */
final class SentinelFlood implements AutoCloseable {
    private static final Pattern NONCE = Pattern.compile("\"nonce\":\"([^\"]+)\"");

    private final InetSocketAddress broker;
    private final int inFlight;
    private final char[] jwt;
    private final AuthHandler sentinel;
    private final Selector selector;
    private final Thread thread;
    private final Map<SocketChannel, Attempt> open = new HashMap<>();
    private volatile boolean running = true;
    final AtomicLong started = new AtomicLong();
    final AtomicLong refusedFast = new AtomicLong(); // -ERR within 1 s: the responder answered
    final AtomicLong refusedSlow = new AtomicLong(); // -ERR later: the broker's authorization timeout
    final AtomicLong admitted = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    /** One connect under way: its start and what it read so far. */
    private static final class Attempt {
        final long start = System.nanoTime();
        final StringBuilder read = new StringBuilder();
        boolean connectSent;
    }

    SentinelFlood(InetSocketAddress broker, int inFlight, AuthHandler sentinel) throws IOException {
        this.broker = broker;
        this.inFlight = inFlight;
        this.sentinel = sentinel;
        this.jwt = sentinel.getJWT();
        this.selector = Selector.open();
        this.thread = new Thread(this::run, "sentinel-flood");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (running) {
                for (int i = 0; i < 100 && open.size() < inFlight; i++) {
                    openOne();
                }
                selector.select(50);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel channel = (SocketChannel) key.channel();
                    try {
                        if (key.isConnectable() && channel.finishConnect()) {
                            key.interestOps(SelectionKey.OP_READ);
                        } else if (key.isReadable()) {
                            read(channel);
                        }
                    } catch (IOException e) {
                        end(channel, failed);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            new ArrayList<>(open.keySet()).forEach(channel -> end(channel, null));
            try {
                selector.close();
            } catch (IOException e) {
                // closing the flood's selector
            }
        }
    }

    private void openOne() {
        try {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_CONNECT);
            channel.connect(broker);
            open.put(channel, new Attempt());
            started.incrementAndGet();
        } catch (IOException e) {
            failed.incrementAndGet();
        }
    }

    private void read(SocketChannel channel) throws IOException {
        Attempt attempt = open.get(channel);
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        int n = channel.read(buffer);
        if (n < 0) {
            end(channel, failed);
            return;
        }
        attempt.read.append(new String(buffer.array(), 0, n, StandardCharsets.US_ASCII));
        String text = attempt.read.toString();
        if (!attempt.connectSent) {
            Matcher nonce = NONCE.matcher(text);
            if (text.contains("\r\n") && nonce.find()) {
                String sig = Base64.getUrlEncoder().withoutPadding().encodeToString(
                        sentinel.sign(nonce.group(1).getBytes(StandardCharsets.US_ASCII)));
                String connect = "CONNECT {\"verbose\":false,\"pedantic\":false,\"lang\":\"raw\",\"version\":\"0\","
                        + "\"protocol\":1,\"headers\":true,\"no_responders\":true,\"name\":\"flood\",\"jwt\":\""
                        + new String(jwt) + "\",\"sig\":\"" + sig + "\"}\r\nPING\r\n";
                channel.write(ByteBuffer.wrap(connect.getBytes(StandardCharsets.US_ASCII)));
                attempt.connectSent = true;
                attempt.read.setLength(0);
            }
            return;
        }
        if (text.contains("-ERR")) {
            end(channel, System.nanoTime() - attempt.start < 1_000_000_000L ? refusedFast : refusedSlow);
        } else if (text.contains("PONG")) {
            end(channel, admitted);
        }
    }

    private void end(SocketChannel channel, AtomicLong counter) {
        if (open.remove(channel) != null && counter != null) {
            counter.incrementAndGet();
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing a flood socket
        }
    }

    public static void main(String[] args) throws Exception {
        AuthHandler sentinel = ai.cotal.core.creds.Creds.parse(java.nio.file.Files.readString(
                java.nio.file.Path.of(args[3]))).authHandler();
        try (SentinelFlood flood = new SentinelFlood(new InetSocketAddress(args[0], Integer.parseInt(args[1])),
                Integer.parseInt(args[2]), sentinel)) {
            long end = System.nanoTime() + Long.parseLong(args[4]) * 1_000_000_000L;
            while (System.nanoTime() < end) {
                Thread.sleep(5_000);
                System.out.println("progress: flood " + flood.counts());
            }
            System.out.println("counts " + flood.counts());
        }
    }

    List<Long> counts() {
        return List.of(started.get(), refusedFast.get(), refusedSlow.get(), admitted.get(), failed.get());
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        selector.wakeup();
        thread.join(10_000);
    }
}
