package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Attempt;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker killed between a run's admission and its attempt (SPEC §14.7): the plane fences, the
 * next plane opens on the restarted broker, the admission and an attempt issued before the kill
 * replay to the same result, the attempt asked after it is issued once and replays; no attempt
 * row is ever written twice.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ManagerRunsRestartBrokerTest {
    static final String RUN = "run00000000000000000000001";
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    @Test
    void theAttemptReplaysToTheSameResultAcrossABrokerKill(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        AuthAuthorityPlane first = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        RunParty p = RunParty.of(first, nats, cf);
        String before = Identity.create().id();
        String after = Identity.create().id();
        ManagerRuns.Admission admitted = p.admit(RUN);
        Attempt early = first.managerRuns().issueAttempt(p.holder, RunParty.start(RUN, "att00000000000000000000000", before));
        nats.kill();
        assertThrows(CotalException.class, () -> first.managerRuns().issueAttempt(p.holder,
                RunParty.start(RUN, "att00000000000000000000001", after)), "no attempt without the broker");
        first.fenced().get(10, TimeUnit.SECONDS);
        nats.restart();
        try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.options(nats, stateDir)
                .livenessOracle(PlaneFixture.operatorSaysGone()).build())) {
            ManagerRuns runs = second.managerRuns();
            ManagerRuns.Admission again = runs.admit(p.holder, new ManagerRuns.AdmissionRequest(new RunId(RUN), new Actor("worker"), new LifecycleUid(p.workerUid)));
            assertTrue(again.replayed());
            assertEquals(admitted.admittedAt(), again.admittedAt());
            Attempt earlyAgain = runs.issueAttempt(p.holder, RunParty.start(RUN, "att00000000000000000000000", before));
            assertTrue(earlyAgain.replayed());
            assertEquals(early.jwt(), earlyAgain.jwt(), "the attempt before the kill replays to the same credential");
            Attempt issued = runs.issueAttempt(p.holder, RunParty.start(RUN, "att00000000000000000000001", after));
            assertFalse(issued.replayed(), "the attempt the kill cut off was never written");
            Attempt replay = runs.issueAttempt(p.holder, RunParty.start(RUN, "att00000000000000000000001", after));
            assertTrue(replay.replayed());
            assertEquals(issued.jwt(), replay.jwt());
            try (Connection admin = f.admin(nats)) {
                StreamInfo info = admin.jetStreamManagement().getStreamInfo("KV_" + StoreNames.bucket("admission", "alpha"),
                        StreamInfoOptions.filterSubjects("$KV." + StoreNames.bucket("admission", "alpha") + ".run.>"));
                // the filter narrows the subjects listed, not num_subjects (the store's fence rows count there)
                assertEquals(3, info.getStreamState().getSubjects().size(), "one admission, two attempts");
                assertEquals(3, info.getStreamState().getSubjects().stream().mapToLong(s -> s.getCount()).sum(),
                        "each written once");
            }
        } finally {
            p.close();
            try {
                first.close();
            } catch (CotalException e) {
                // the fenced plane's claim was taken over: its release is refused
            }
        }
    }
}
