package ai.cotal.testbroker;

import io.nats.client.Connection;
import io.nats.client.Message;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Real nats-servers in one JetStream cluster, for one test: each member its own server name,
 * client, route and monitoring port, store directory and work directory, with routes to every
 * other member (local backend only). Fault operations per member: {@link #stop(int)},
 * {@link #kill(int)} (SIGKILL), {@link #restart(int)}; {@link #awaitMetaLeader(Duration)} waits
 * until the running members agree on a JetStream meta leader, {@link #awaitHealthy(int, Duration)}
 * until a member reports {@code /healthz} ok (JetStream current). Not thread-safe;
 * {@link #close()} stops every member and deletes its directories.
 */
public final class NatsCluster implements AutoCloseable {
    /** The cluster name every member renders. */
    public static final String NAME = "cotal-test";
    private static final Duration POLL = Duration.ofMillis(50);
    /** {@code /jsz}: the meta group's leader comes before its replica list (nats-server's field order). */
    private static final Pattern META_LEADER =
            Pattern.compile("\"meta_cluster\"\\s*:\\s*\\{[^{}]*?\"leader\"\\s*:\\s*\"([^\"]*)\"");

    private final List<NatsBroker> members;
    private final List<String> names;

    private NatsCluster(List<NatsBroker> members, List<String> names) {
        this.members = List.copyOf(members);
        this.names = List.copyOf(names);
    }

    /**
     * Starts {@code size} members (at least 3): {@code config} renders each member's config from its
     * {@link ClusterMember} (for example {@link ClusterMember#defaultConfig()}, or an operator and
     * full-resolver config with {@link ClusterMember#clusterBlock()}), then the member starts.
     */
    public static NatsCluster start(BackendChoice choice, int size, Function<ClusterMember, String> config) {
        if (size < 3) {
            throw new BrokerException("a JetStream cluster for tests has at least 3 members, not " + size);
        }
        if (choice.kind() != BackendChoice.Kind.LOCAL) {
            throw new BrokerException("a nats-server cluster runs on the local backend only (COTAL_BROKER_BACKEND=local"
                    + " or COTAL_NATS_SERVER): routes between containers are not built yet");
        }
        int[] ports = freePorts(size * 3);
        List<NatsBroker> started = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                int index = i;
                String name = "n" + (i + 1);
                List<Integer> peers = new ArrayList<>();
                for (int j = 0; j < size; j++) {
                    if (j != i) {
                        peers.add(ports[3 * j + 1]);
                    }
                }
                started.add(NatsBroker.startAt(choice, ports[3 * i], ports[3 * i + 2], broker -> config.apply(
                        new ClusterMember(NAME, name, broker.host(), ports[3 * index], ports[3 * index + 1], peers,
                                broker.storeDir(), broker.workDir()))));
                names.add(name);
            }
        } catch (RuntimeException e) {
            started.forEach(NatsBroker::close);
            throw e;
        }
        return new NatsCluster(started, names);
    }

    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Closing a probe socket: nothing to report.
                }
            }
        }
    }

    /** The members, in start order ({@code n1} first). */
    public List<NatsBroker> members() {
        return members;
    }

    public NatsBroker member(int index) {
        return members.get(index);
    }

    /** Member {@code index}'s server name ({@code n<index+1>}). */
    public String serverName(int index) {
        return names.get(index);
    }

    /** The index of the member named {@code serverName}. */
    public int indexOf(String serverName) {
        int index = names.indexOf(serverName);
        if (index < 0) {
            throw new BrokerException("no member named " + serverName + " in " + names);
        }
        return index;
    }

    /** Every member's client URL, for {@code Options.Builder.servers(...)}. */
    public String[] urls() {
        return members.stream().map(NatsBroker::url).toArray(String[]::new);
    }

    /** Graceful shutdown of one member (SIGTERM); returns when it has exited. */
    public void stop(int index) {
        members.get(index).stop();
    }

    /** SIGKILL of one member; returns when the process is gone. */
    public void kill(int index) {
        members.get(index).kill();
    }

    /** Starts a stopped or killed member again: same ports, same store directory, same config. */
    public void restart(int index) {
        members.get(index).restart();
    }

    /**
     * Waits until every running member names the same JetStream meta leader, itself a running
     * member; returns its server name.
     */
    public String awaitMetaLeader(Duration timeout) {
        return poll(timeout, () -> {
            List<String> leaders = new ArrayList<>();
            for (NatsBroker member : members) {
                if (!member.running()) {
                    continue;
                }
                Optional<String> leader = get(member, "/jsz").map(META_LEADER::matcher).filter(Matcher::find)
                        .map(m -> m.group(1)).filter(v -> !v.isEmpty());
                if (leader.isEmpty()) {
                    return Optional.empty();
                }
                leaders.add(leader.get());
            }
            String leader = leaders.isEmpty() ? null : leaders.get(0);
            boolean agreed = leader != null && leaders.stream().allMatch(leader::equals)
                    && names.contains(leader) && members.get(names.indexOf(leader)).running();
            return agreed ? Optional.of(leader) : Optional.empty();
        }, "a JetStream meta leader that every running member names");
    }

    /**
     * Waits until JetStream serves one account on every running member. A member loads an
     * operator-mode account lazily, at the first client or request that names it, and enables its
     * JetStream only after it is registered: a JetStream request arriving inside that window is
     * answered 10039 ("JetStream not enabled for account") although the account has JetStream.
     * For each running member in turn, {@code connect} opens a client of the account there (its
     * connect loads the account on that member), then {@code $JS.API.INFO}, which the meta leader
     * answers, is asked until the answer is not 10039; the client is closed after.
     */
    public void awaitAccountJetStream(IntFunction<Connection> connect, Duration timeout) {
        for (int i = 0; i < members.size(); i++) {
            if (!members.get(i).running()) {
                continue;
            }
            Connection connection = connect.apply(i);
            try {
                poll(timeout, () -> accountInfo(connection), serverName(i) + ": account JetStream answers");
            } finally {
                try {
                    connection.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** {@code $JS.API.INFO} over {@code connection}: present unless unanswered or answered 10039. */
    private static Optional<String> accountInfo(Connection connection) {
        try {
            Message reply = connection.request("$JS.API.INFO", new byte[0], Duration.ofSeconds(2));
            if (reply == null) {
                return Optional.empty();
            }
            String body = new String(reply.getData(), StandardCharsets.UTF_8);
            return body.contains("\"err_code\":10039") ? Optional.empty() : Optional.of(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while asking $JS.API.INFO");
        }
    }

    /** Waits until member {@code index} answers {@code /healthz} ok: JetStream enabled and current. */
    public void awaitHealthy(int index, Duration timeout) {
        NatsBroker member = members.get(index);
        poll(timeout, () -> get(member, "/healthz").map(body -> "ok"), serverName(index) + " /healthz ok");
    }

    private <T> T poll(Duration timeout, java.util.function.Supplier<Optional<T>> probe, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() > deadline) {
                throw new BrokerException("cluster did not reach " + what + " within " + timeout + "; members: "
                        + members.stream().map(m -> m.url() + (m.running() ? " up" : " down")).collect(Collectors.joining(", ")));
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BrokerException("interrupted while waiting for " + what);
            }
        }
    }

    /** The body of a 200 answer from the member's monitoring endpoint, or empty. */
    private static Optional<String> get(NatsBroker member, String path) {
        try {
            HttpURLConnection http = (HttpURLConnection) URI.create("http://" + member.host() + ":" + member.monitorPort()
                    + path).toURL().openConnection();
            http.setConnectTimeout(1_000);
            http.setReadTimeout(2_000);
            try {
                if (http.getResponseCode() != 200) {
                    return Optional.empty();
                }
                try (InputStream in = http.getInputStream()) {
                    return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            } finally {
                http.disconnect();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        members.forEach(NatsBroker::close);
    }

    @Override
    public String toString() {
        return "NatsCluster" + names;
    }
}
