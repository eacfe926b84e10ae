package ai.cotal.auth.internal.manager;

import ai.cotal.auth.PlaneRegistration;
import ai.cotal.auth.ServingGate;
import ai.cotal.auth.internal.manager.ServingDocuments.AuthSpec;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plane's registration as endpoint {@code auth} (SPEC §14.2): at open, the restart identity,
 * the spec (create-only), the gate at the next process epoch (create or CAS) and its re-read; later,
 * the observation that fences this plane once another open advanced the epoch. Thread-safe.
 */
public final class PlaneRegistrar {
    private static final Logger LOG = LoggerFactory.getLogger(PlaneRegistrar.class);
    static final String ENDPOINT = "auth";

    private final String space;
    private final ServingRecords records;
    private final PlaneRegistration registration;
    private final Consumer<String> fence;

    private PlaneRegistrar(String space, ServingRecords records, PlaneRegistration registration, Consumer<String> fence) {
        this.space = space;
        this.records = records;
        this.registration = registration;
        this.fence = fence;
    }

    /**
     * Registers the plane (steps 1 to 4 of SPEC §14.2); {@code fence} is the plane's fatal latch,
     * called when an observation finds a later epoch.
     */
    public static PlaneRegistrar register(String space, RestartIdentity identity, ServingRecords records, Clock clock,
            Consumer<String> fence) {
        String iid = identity.instanceId();
        long specRevision = spec(records, iid, identity);
        Optional<ServingGate> read = records.gate(ENDPOINT, iid);
        long epoch;
        Optional<Long> written;
        if (read.isEmpty()) {
            epoch = 1;
            written = records.createGate(gate(iid, identity, epoch, specRevision, clock));
        } else {
            ServingGate gate = read.get();
            if (!gate.principal().equals(identity.principal())) {
                throw new CotalException(ErrorCode.CONFLICT, "the serving gate of auth instance " + iid
                        + " names another principal");
            }
            if (gate.state() != ServingGate.State.OPEN) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the serving gate of auth instance " + iid
                        + " is frozen");
            }
            epoch = gate.processEpoch() + 1;
            written = records.replaceGate(gate(iid, identity, epoch, specRevision, clock), gate.revision());
        }
        if (written.isEmpty()) {
            throw new CotalException(ErrorCode.CONFLICT, "the serving gate of auth instance " + iid
                    + " moved while this plane registered it");
        }
        ServingGate again = records.gate(ENDPOINT, iid).orElse(null);
        if (again == null || !again.openAt(epoch, specRevision)) {
            throw new CotalException(ErrorCode.CONFLICT, "the serving gate of auth instance " + iid
                    + " is not open at this open's epoch; another plane registered it");
        }
        LOG.info("auth-plane: space {} registered auth instance {} at process epoch {}", space, iid, epoch);
        return new PlaneRegistrar(space, records, new PlaneRegistration(iid, identity.serveIdentity(), epoch, specRevision),
                fence);
    }

    private static long spec(ServingRecords records, String iid, RestartIdentity identity) {
        byte[] mine = ServingDocuments.write(new AuthSpec(1, ENDPOINT, iid, identity.serveIdentity()));
        for (int round = 0; round < 2; round++) {
            Optional<ServingRecords.Stored<byte[]>> stored = records.authSpec(iid);
            if (stored.isPresent()) {
                ServingDocuments.parseAuthSpec(iid, stored.get().value());
                if (!Arrays.equals(stored.get().value(), mine)) {
                    throw new CotalException(ErrorCode.CONFLICT, "auth instance " + iid
                            + " is registered with another serve identity");
                }
                return stored.get().revision();
            }
            Optional<Long> created = records.createAuthSpec(iid, mine);
            if (created.isPresent()) {
                return created.get();
            }
        }
        throw new CotalException(ErrorCode.CONFLICT, "the service spec of auth instance " + iid + " moved twice");
    }

    private static ServingGate gate(String iid, RestartIdentity identity, long epoch, long specRevision, Clock clock) {
        return new ServingGate(ENDPOINT, iid, ServingGate.State.OPEN, identity.principal(), epoch, specRevision,
                clock.instant().toString(), 0);
    }

    /** This open's registration. */
    public PlaneRegistration registration() {
        return registration;
    }

    /**
     * Re-reads the gate: open at this plane's epoch and registration revision → the registration;
     * anything else fences the plane and refuses {@code failed-precondition}.
     */
    public PlaneRegistration observe() {
        Optional<ServingGate> gate = records.gate(ENDPOINT, registration.instanceId());
        if (gate.isPresent() && gate.get().openAt(registration.processEpoch(), registration.registrationRevision())) {
            return registration;
        }
        String why = gate.map(g -> "a later plane registered auth instance " + registration.instanceId()
                + " at process epoch " + g.processEpoch() + " (this plane's is " + registration.processEpoch() + ")")
                .orElse("the serving gate of auth instance " + registration.instanceId() + " is gone");
        fence.accept(why);
        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the auth plane of space \"" + space
                + "\" was fenced: " + why);
    }
}
