package ai.cotal.auth.exchange;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plain HTTP/1.1 over raw sockets from one local address (tests only): what a slow or hostile
 * client does byte by byte, and whether the server closed the connection (a read that ends, not
 * a wait). Every read has a 20 s guard so a broken server fails the test instead of hanging it.
 */
final class RawClients implements AutoCloseable {
    private static final int GUARD_MILLIS = 20_000;
    private final InetAddress local;
    private final List<Raw> opened = new ArrayList<>();

    RawClients(InetAddress local) {
        this.local = local;
    }

    /** A connection from the local address to {@code port} on 127.0.0.1. */
    Raw open(int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(local, 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), GUARD_MILLIS);
        socket.setSoTimeout(GUARD_MILLIS);
        Raw raw = new Raw(socket);
        synchronized (opened) {
            opened.add(raw);
        }
        return raw;
    }

    Raw get(int i) {
        synchronized (opened) {
            return opened.get(i);
        }
    }

    @Override
    public void close() {
        synchronized (opened) {
            opened.forEach(Raw::close);
        }
    }

    /** A status line's code and the whole answer as text. */
    record Answer(int status, String text) {
    }

    /** One connection. */
    static final class Raw implements AutoCloseable {
        private final Socket socket;
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private final AtomicInteger dripped = new AtomicInteger();

        Raw(Socket socket) {
            this.socket = socket;
        }

        void send(String text) throws IOException {
            socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
        }

        /**
         * Writes {@code text} one byte every {@code millis} on a thread of its own, until done or
         * the connection breaks; returns at once. {@link #dripped()} counts the bytes written.
         */
        void drip(String text, long millis) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            Thread thread = new Thread(() -> {
                try {
                    for (byte b : bytes) {
                        socket.getOutputStream().write(b);
                        socket.getOutputStream().flush();
                        dripped.incrementAndGet();
                        Thread.sleep(millis); // the attack's pace, not a wait for an event
                    }
                } catch (IOException | InterruptedException e) {
                    // the server cut the connection: the drip ends
                }
            }, "raw-drip");
            thread.setDaemon(true);
            thread.start();
        }

        int dripped() {
            return dripped.get();
        }

        Answer request(String text) throws IOException {
            send(text);
            return answer();
        }

        /** Reads one answer: headers, then {@code Content-Length} bytes of body. */
        Answer answer() throws IOException {
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("closed before an answer: " + head.toString(StandardCharsets.ISO_8859_1));
                }
                head.write(b);
            }
            String headers = head.toString(StandardCharsets.ISO_8859_1);
            int length = 0;
            for (String line : headers.split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            String body = new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
            return new Answer(Integer.parseInt(headers.substring(9, 12)), headers + body);
        }

        /**
         * Reads until the server closes the connection (true) or the guard passes (false); what
         * arrived meanwhile is kept in {@link #received()}.
         */
        boolean closedByServer() throws IOException {
            byte[] buffer = new byte[4096];
            try {
                while (true) {
                    int n = socket.getInputStream().read(buffer);
                    if (n < 0) {
                        return true;
                    }
                    received.write(buffer, 0, n);
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true; // reset by the server
            }
        }

        /** Ends the client's half of the connection (the server reads its end), still reading. */
        void endOutput() throws IOException {
            socket.shutdownOutput();
        }

        /** Bytes that arrived while waiting for the close. */
        String received() {
            return received.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing a test socket
            }
        }
    }
}
