package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ConnTuple;
import ai.cotal.auth.LivenessOracle;
import ai.cotal.auth.LivenessOracle.State;
import ai.cotal.auth.internal.plane.ConnzLivenessOracle.ServerRead;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The oracle's rule (SPEC §13.13) from what a sweep heard: proofs (a) and (b), and silence as no proof. */
class ConnzLivenessOracleTest {
    private static final String N1_RUN1 = NKeyPair.create(KeyType.SERVER).publicKey();
    private static final String N1_RUN2 = NKeyPair.create(KeyType.SERVER).publicKey();
    private static final String N2 = NKeyPair.create(KeyType.SERVER).publicKey();
    private final ConnTuple onN1 = new ConnTuple(N1_RUN1, "n1", 7, NKeyPair.create(KeyType.USER).publicKey());
    private final ConnTuple onN2 = new ConnTuple(N2, "n2", 9, NKeyPair.create(KeyType.USER).publicKey());

    @Test
    void listedIsLiveAndReadToItsEndWithoutItIsGone() {
        LivenessOracle.Answer answer = ConnzLivenessOracle.decide(List.of(onN1, onN2), List.of(
                new ServerRead(N1_RUN1, "n1", true, Set.of("7/" + onN1.userNkey())),
                new ServerRead(N2, "n2", true, Set.of("8/" + onN2.userNkey()))));
        assertEquals(State.LIVE, state(answer, onN1));
        assertEquals(State.GONE, state(answer, onN2), "proof (a): its own server was read to its end without it");
        assertTrue(answer.completeSweep());
    }

    @Test
    void aServerAnsweringUnderTheNameWithAnotherIdProvesTheOldRunGone() {
        LivenessOracle.Answer answer = ConnzLivenessOracle.decide(List.of(onN1, onN2), List.of(
                new ServerRead(N1_RUN2, "n1", false, Set.of()), new ServerRead(N2, "n2", true, Set.of())));
        assertEquals(State.GONE, state(answer, onN1), "proof (b): n1 restarted, so its old run's connections ended");
        assertEquals(State.GONE, state(answer, onN2));
        assertTrue(answer.completeSweep());
    }

    @Test
    void aSilentServerIsNoProofWhateverTheOthersSay() {
        LivenessOracle.Answer answer = ConnzLivenessOracle.decide(List.of(onN1, onN2), List.of(
                new ServerRead(N2, "n2", true, Set.of())));
        assertEquals(State.UNKNOWN, state(answer, onN1), "n1 may be partitioned, not dead");
        assertEquals(State.GONE, state(answer, onN2));
        assertFalse(answer.completeSweep());
    }

    @Test
    void itsOwnServerNotReadToItsEndIsNoProof() {
        LivenessOracle.Answer answer = ConnzLivenessOracle.decide(List.of(onN1), List.of(
                new ServerRead(N1_RUN1, "n1", false, Set.of())));
        assertEquals(State.UNKNOWN, state(answer, onN1));
        assertFalse(answer.completeSweep());
    }

    @Test
    void aTupleWithoutARecordedNameIsNeverProvedByARestart() {
        ConnTuple unnamed = new ConnTuple(N1_RUN1, N1_RUN1, 7, onN1.userNkey()); // a row written before names
        LivenessOracle.Answer answer = ConnzLivenessOracle.decide(List.of(unnamed), List.of(
                new ServerRead(N1_RUN2, N1_RUN2, true, Set.of())));
        assertEquals(State.UNKNOWN, state(answer, unnamed));
        assertFalse(answer.completeSweep());
    }

    /** A tuple's state in the answer: {@code UNKNOWN} when the answer does not name it. */
    private static State state(LivenessOracle.Answer answer, ConnTuple tuple) {
        return answer.states().getOrDefault(tuple, State.UNKNOWN);
    }
}
