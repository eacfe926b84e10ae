package ai.cotal.auth;

import java.util.List;
import java.util.Map;

/**
 * Tells whether connections recorded in a plane claim still exist. The plane reclaims a claim
 * held by another instance only when the oracle says both recorded connections are {@code GONE}
 * under a complete sweep. Implementations never throw: any doubt is {@link State#UNKNOWN}.
 * The plane's default asks every broker server for the data account's {@code CONNZ} (SPEC
 * §13.13); embedders may supply their own.
 */
@FunctionalInterface
public interface LivenessOracle {
    /** What the oracle knows of one connection. */
    enum State { LIVE, GONE, UNKNOWN }

    /**
     * @param states         one state per asked tuple
     * @param completeSweep  true only when every asked tuple's server was accounted for: every
     *                       connection of the account on it was seen, or it is proven to have
     *                       ended since (on a cluster, the servers holding no asked tuple are not
     *                       relevant: SPEC §13.13)
     */
    record Answer(Map<ConnTuple, State> states, boolean completeSweep) {
        public Answer {
            states = Map.copyOf(states);
        }

        /** Every tuple {@code UNKNOWN}, sweep incomplete. */
        public static Answer unknown(List<ConnTuple> tuples) {
            Map<ConnTuple, State> states = new java.util.HashMap<>();
            tuples.forEach(t -> states.put(t, State.UNKNOWN));
            return new Answer(states, false);
        }

        State of(ConnTuple tuple) {
            return states.getOrDefault(tuple, State.UNKNOWN);
        }
    }

    Answer check(List<ConnTuple> tuples);
}
