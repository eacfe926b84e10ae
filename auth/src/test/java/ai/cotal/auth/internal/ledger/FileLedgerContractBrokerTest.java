package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.internal.plane.FileActorLedger;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/** {@link LedgerContract} on the file placement: the state directory's rows and {@code idp.json}. */
@Tag("broker")
class FileLedgerContractBrokerTest extends LedgerContract {
    @TempDir
    Path stateDir;

    @Override
    LedgerBackend ledger() {
        return new FileActorLedger(stateDir.resolve("state"), Clock.systemUTC());
    }

    @Override
    Placement placement() {
        return Placement.FILES;
    }
}
