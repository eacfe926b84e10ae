package ai.cotal.auth.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Slow HTTP clients on loopback, one thread, non-blocking: it keeps {@code target} connections
 * open to a port, each sending the start of a request and then one header byte per second, never
 * finishing; a connection the server closes is opened again. Sources rotate over 127.0.1.x,
 * {@code perSource} connections each, so the per-peer cap alone does not stop it. Bounded: it
 * stops at {@link #close()}.
 */
final class SlowAttack implements AutoCloseable {
    private static final byte[] START = ("POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "X-Slow: ").getBytes(StandardCharsets.US_ASCII);

    private final int port;
    private final int target;
    private final int perSource;
    private final Selector selector;
    private final Thread thread;
    private final List<SocketChannel> open = new ArrayList<>();
    private volatile boolean running = true;
    final AtomicLong opened = new AtomicLong();
    final AtomicLong closedByServer = new AtomicLong();
    private long next;

    SlowAttack(int port, int target, int perSource) throws IOException {
        this.port = port;
        this.target = target;
        this.perSource = perSource;
        this.selector = Selector.open();
        this.thread = new Thread(this::run, "slow-attack-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    /** Connections open now (connected or connecting). */
    int held() {
        synchronized (open) {
            return open.size();
        }
    }

    private void run() {
        long lastDrip = System.nanoTime();
        try {
            while (running) {
                for (int i = 0; i < 200 && held() < target; i++) {
                    openOne();
                }
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel channel = (SocketChannel) key.channel();
                    try {
                        if (key.isConnectable() && channel.finishConnect()) {
                            key.interestOps(SelectionKey.OP_READ);
                            channel.write(ByteBuffer.wrap(START));
                        } else if (key.isReadable() && channel.read(ByteBuffer.allocate(512)) < 0) {
                            drop(channel, true);
                        }
                    } catch (IOException e) {
                        drop(channel, true);
                    }
                }
                selector.selectedKeys().clear();
                if (System.nanoTime() - lastDrip > 1_000_000_000L) { // the attack's pace: one byte a second
                    lastDrip = System.nanoTime();
                    for (SocketChannel channel : snapshot()) {
                        try {
                            if (channel.isConnected()) {
                                channel.write(ByteBuffer.wrap(new byte[] {'a'}));
                            }
                        } catch (IOException e) {
                            drop(channel, true);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            snapshot().forEach(channel -> drop(channel, false));
            try {
                selector.close(); // a closed channel's descriptor is released only when its selector lets go of it
            } catch (IOException e) {
                // closing the attack's selector
            }
        }
    }

    private void openOne() {
        long n = next++;
        try {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.bind(new InetSocketAddress(InetAddress.getByName("127.0.1." + (1 + (n / perSource) % 250)), 0));
            channel.register(selector, SelectionKey.OP_CONNECT);
            channel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            synchronized (open) {
                open.add(channel);
            }
            opened.incrementAndGet();
        } catch (IOException e) {
            // a source port range exhausted or the like: try the next source
        }
    }

    private List<SocketChannel> snapshot() {
        synchronized (open) {
            return new ArrayList<>(open);
        }
    }

    private void drop(SocketChannel channel, boolean byServer) {
        synchronized (open) {
            if (!open.remove(channel)) {
                return;
            }
        }
        if (byServer) {
            closedByServer.incrementAndGet();
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing an attack socket
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        selector.wakeup();
        thread.join(10_000);
    }
}
