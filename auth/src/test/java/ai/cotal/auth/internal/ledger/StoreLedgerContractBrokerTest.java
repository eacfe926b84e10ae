package ai.cotal.auth.internal.ledger;

import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LedgerContract} on the store placement: rows of a real broker's auth store. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreLedgerContractBrokerTest extends LedgerContract {
    private StoreLedgerBroker store;

    @BeforeEach
    void start(NatsBrokers brokers) throws Exception {
        store = new StoreLedgerBroker(brokers);
    }

    @AfterEach
    void stop() throws Exception {
        store.close();
    }

    @Override
    LedgerBackend ledger() {
        return store.ledger();
    }

    @Override
    Placement placement() {
        return Placement.STORE;
    }
}
