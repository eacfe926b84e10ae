package ai.cotal.testbroker;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Starts brokers for one test and closes them all when the test ends. Handed out by
 * {@link NatsBrokerExtension} as a parameter; not thread-safe.
 */
public final class NatsBrokers implements AutoCloseable {
    private final BackendChoice choice;
    private final List<NatsBroker> started = new ArrayList<>();

    NatsBrokers(BackendChoice choice) {
        this.choice = choice;
    }

    /** The backend every broker of this set runs on. */
    public BackendChoice choice() {
        return choice;
    }

    public NatsBroker start(String config) {
        return track(NatsBroker.start(config, choice));
    }

    public NatsBroker start(Function<NatsBroker, String> config) {
        return track(NatsBroker.start(choice, config));
    }

    /**
     * Starts a three-member JetStream cluster ({@link NatsCluster}, local backend): {@code config}
     * renders each member's config. Every member is closed after the test, and its log tail is
     * attached to a failure like any broker's.
     */
    public NatsCluster startCluster(Function<ClusterMember, String> config) {
        NatsCluster cluster = NatsCluster.start(choice, 3, config);
        started.addAll(cluster.members());
        return cluster;
    }

    private NatsBroker track(NatsBroker broker) {
        started.add(broker);
        return broker;
    }

    List<NatsBroker> started() {
        return List.copyOf(started);
    }

    @Override
    public void close() {
        for (NatsBroker broker : started) {
            broker.close();
        }
        started.clear();
    }
}
