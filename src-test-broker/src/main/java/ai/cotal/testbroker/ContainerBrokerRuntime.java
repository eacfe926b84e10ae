package ai.cotal.testbroker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs the {@code nats} image through Testcontainers. The work directory is bound into the
 * container at the same absolute path, so a config naming files under {@link #workDir()} means the
 * same files on both sides; the host port is fixed so that {@link #restart()} keeps it.
 */
final class ContainerBrokerRuntime extends DirectoryRuntime {
    private static final int CLIENT_PORT = 4222;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final String image;
    private GenericContainer<?> container;
    private int port;
    private boolean running;

    ContainerBrokerRuntime(String image) {
        this.image = image;
    }

    @Override
    public void start(String config) {
        writeConfig(config);
        port = freePort();
        container = new GenericContainer<>(DockerImageName.parse(image).asCompatibleSubstituteFor("nats"))
                .withFileSystemBind(workDir.toString(), workDir.toString(), BindMode.READ_WRITE)
                .withExposedPorts(CLIENT_PORT)
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withPortBindings(
                        new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", port), new ExposedPort(CLIENT_PORT))))
                .withCommand("-c", configFile.toString(), "-a", "0.0.0.0", "-p", Integer.toString(CLIENT_PORT));
        container.start();
        running = true;
        followLog();
    }

    @Override
    public void startAt(String config, int clientPort, int monitor) {
        throw new BrokerException("a nats-server cluster runs on the local backend only (COTAL_BROKER_BACKEND=local or"
                + " COTAL_NATS_SERVER): routes between containers are not built yet");
    }

    @Override
    public int monitorPort() {
        return -1;
    }

    private void followLog() {
        long mark = log.mark();
        docker().logContainerCmd(container.getContainerId()).withStdOut(true).withStdErr(true)
                .withFollowStream(true).withSince((int) (System.currentTimeMillis() / 1000) - 1)
                .exec(new ResultCallback.Adapter<Frame>() {
                    @Override
                    public void onNext(Frame frame) {
                        new String(frame.getPayload(), StandardCharsets.UTF_8).lines().forEach(log::append);
                    }
                });
        log.await(mark, line -> line.contains("Server is ready"), READY_TIMEOUT)
                .orElseThrow(() -> new BrokerException("nats container did not become ready; log tail:\n"
                        + String.join("\n", log.tail(40))));
    }

    private DockerClient docker() {
        return container.getDockerClient();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean running() {
        return running;
    }

    @Override
    public void stop() {
        if (running) {
            docker().stopContainerCmd(container.getContainerId()).exec();
            running = false;
        }
    }

    @Override
    public void kill() {
        if (running) {
            docker().killContainerCmd(container.getContainerId()).exec();
            running = false;
        }
    }

    @Override
    public void restart() {
        if (running) {
            throw new BrokerException("restart() needs a stopped broker: call stop() or kill() first");
        }
        docker().startContainerCmd(container.getContainerId()).exec();
        running = true;
        followLog();
    }

    @Override
    public void reload(String config) {
        writeConfig(config);
        long mark = log.mark();
        docker().killContainerCmd(container.getContainerId()).withSignal("HUP").exec();
        String outcome = log.await(mark, line -> line.contains("Reloaded server configuration")
                        || line.contains("Failed to reload"), READY_TIMEOUT)
                .orElseThrow(() -> new BrokerException("nats container did not report the reload"));
        if (outcome.contains("Failed to reload")) {
            throw new BrokerException("nats-server refused the new config: " + outcome);
        }
    }

    @Override
    public long residentKib() {
        return -1;
    }

    @Override
    public void destroy() {
        if (container != null) {
            container.stop();
        }
        running = false;
        deleteWorkDir();
    }
}
