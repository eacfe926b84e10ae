package ai.cotal.auth;

import java.util.List;

/**
 * The broker subjects a {@link Grant} opens to one connection of its principal through the auth
 * callout, in the plain view (SPEC §13.14, §13.16): the publish and subscribe allow lists the
 * callout writes into that connection's user JWT, in its order, as {@link Grant#subjects} computes
 * them. When {@code publish} is empty the JWT denies every publish ({@code deny: [">"]}) rather
 * than carrying an empty allow list; {@code subscribe} always starts with the connection's inbox.
 * A connect that also holds service-endpoint caller grants publishes their capability subjects
 * too (SPEC §13.1), and a bearer's view ({@code manager-caller}, {@code session-caller}, a serving
 * connect) replaces these lists altogether. Immutable and thread-safe.
 *
 * @param publish the subjects the connection may publish, literal subjects only
 * @param subscribe the subjects (patterns) it may subscribe
 */
public record GrantSubjects(List<String> publish, List<String> subscribe) {
    /** Copies both lists. */
    public GrantSubjects {
        publish = List.copyOf(publish);
        subscribe = List.copyOf(subscribe);
    }
}
