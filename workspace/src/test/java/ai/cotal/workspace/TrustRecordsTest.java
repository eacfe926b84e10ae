package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustRecordsTest {
    @TempDir
    Path root;

    private final Clock clock = Clock.systemUTC();

    private TrustRecords records() {
        return new TrustRecords(new FileSecretStore(root), clock);
    }

    private static void refused(ErrorCode code, Runnable write) {
        CotalException e = assertThrows(CotalException.class, write::run);
        assertEquals(code, e.code(), e.getMessage());
    }

    @Test
    void theBrokerRecordNeverHoldsTheSystemSeed() throws Exception {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        records().saveBroker(broker);
        String file = Files.readString(root.resolve(".cotal/auth/broker.json"));
        assertFalse(file.contains(broker.requireSystemSigner().seed()), "system seed on disk");
        assertTrue(file.contains(broker.operator().seed()));
        BrokerAuth loaded = records().loadBroker().orElseThrow();
        assertEquals(broker.operatorPublicKey(), loaded.operatorPublicKey());
        assertTrue(loaded.systemSigner().isEmpty());
    }

    @Test
    void aDifferentOperatorIsRefused() {
        records().saveBroker(BrokerAuth.create("one", clock));
        refused(ErrorCode.CONFLICT, () -> records().saveBroker(BrokerAuth.create("two", clock)));
    }

    @Test
    void onlyTheSuccessorGenerationIsAccepted() {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        records().saveBroker(broker);
        records().saveBroker(broker); // unchanged system account: idempotent
        BrokerAuth next = broker.rotateSystemAccount(clock);
        BrokerAuth skipped = next.rotateSystemAccount(clock);
        refused(ErrorCode.CONFLICT, () -> records().saveBroker(skipped));
        records().saveBroker(next);
        assertEquals(1, records().loadBroker().orElseThrow().generation());
    }

    @Test
    void anOlderSystemClaimIsARollbackAndRefused() {
        BrokerAuth broker = BrokerAuth.create("b", Clock.offset(clock, Duration.ofHours(-1)));
        records().saveBroker(broker);
        BrokerAuth rotatedLater = broker.rotateSystemAccount(clock);
        records().saveBroker(rotatedLater.withoutSystemSigner());
        BrokerAuth olderSuccessor = new BrokerAuth(broker.operator(), broker.operatorJwt(),
                broker.systemAccount(), broker.systemJwt(), java.util.Optional.empty(), 2);
        refused(ErrorCode.CONFLICT, () -> records().saveBroker(olderSuccessor));
    }

    @Test
    void anAccountFileOfAnotherSpaceIsNotOverwritten() throws Exception {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        records().saveBroker(broker);
        SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
        SpaceAccountAuth beta = SpaceAccountAuth.create(broker, "beta", clock);
        records().saveAccount(alpha);
        Path alphaFile = root.resolve(".cotal").resolve(SecretKeys.accountKey("alpha"));
        Files.copy(root.resolve(".cotal").resolve(SecretKeys.accountKey("alpha")), root.resolve(".cotal")
                .resolve(SecretKeys.accountKey("beta")));
        refused(ErrorCode.CONFLICT, () -> records().saveAccount(beta));
        assertTrue(Files.exists(alphaFile));
    }

    @Test
    void anAccountOfAnotherOperatorIsRefused() {
        records().saveBroker(BrokerAuth.create("b", clock));
        SpaceAccountAuth foreign = SpaceAccountAuth.create(BrokerAuth.create("x", clock), "alpha", clock);
        assertThrows(CotalException.class, () -> records().saveAccount(foreign));
    }

    @Test
    void loadingEveryAccountRefusesWhenAnyRecordIsCorrupt() throws Exception {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        records().saveBroker(broker);
        records().saveAccount(SpaceAccountAuth.create(broker, "alpha", clock));
        records().saveAccount(SpaceAccountAuth.create(broker, "beta", clock));
        assertEquals(List.of("alpha", "beta"), records().loadAccounts(broker).stream().map(SpaceAccountAuth::space).toList());
        Files.writeString(root.resolve(".cotal").resolve(SecretKeys.accountKey("beta")), "{\"version\":1,\"space\":\"beta\"");
        refused(ErrorCode.DATA_LOSS, () -> records().loadAccounts(broker));
    }

    @Test
    void aFirstBrokerRecordMustHaveSignedTheExistingAccounts() {
        BrokerAuth original = BrokerAuth.create("b", clock);
        records().saveAccount(SpaceAccountAuth.create(original, "alpha", clock));
        assertThrows(CotalException.class, () -> records().saveBroker(BrokerAuth.create("impostor", clock)));
        records().saveBroker(original);
    }

    @Test
    void corruptBrokerRecordsRefuseEveryRead() throws Exception {
        records().saveBroker(BrokerAuth.create("b", clock));
        Files.writeString(root.resolve(".cotal/auth/broker.json"), "{\"version\":1,\"operator\":{\"seed\":\"SOAAA\",\"jwt\":\"x\"},\"sys\":{\"pub\":\"A\",\"jwt\":\"x\"},\"gen\":0}");
        refused(ErrorCode.DATA_LOSS, () -> records().loadBroker());
        CotalException e = assertThrows(CotalException.class, () -> records().loadBroker());
        assertFalse(e.getMessage().contains("SOAAA"), "no seed in messages");
    }
}
