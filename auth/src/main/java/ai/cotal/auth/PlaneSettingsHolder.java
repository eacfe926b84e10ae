package ai.cotal.auth;

import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.stores.StoreReplicas;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * An options type that holds a {@link PlaneSettings} ({@link AuthPlaneOptions},
 * {@code AuthServiceOptions}): the shared accessors are written once here, so
 * {@code options.servers()} reads the same on the plane's options and the service's.
 */
public interface PlaneSettingsHolder {
    /** The shared settings. */
    PlaneSettings settings();

    default List<String> servers() {
        return settings().servers();
    }

    default String space() {
        return settings().space();
    }

    /** Absolute and normalized. */
    default Path stateDir() {
        return settings().stateDir();
    }

    /** Where the plane's restart identity file lives when set; empty: the secret store's {@code AuthInstanceIdentity}. */
    default java.util.Optional<Path> identityRoot() {
        return settings().identityRoot();
    }

    default SecretStore secretStore() {
        return settings().secretStore();
    }

    default Clock clock() {
        return settings().clock();
    }

    /** The oracle; without one the plane asks every server's {@code CONNZ} (SPEC §13.13). */
    default Optional<LivenessOracle> livenessOracle() {
        return settings().livenessOracle();
    }

    default Duration standingTtl() {
        return settings().standingTtl();
    }

    /** Lifetime of a remote manager's standing service credential (5 s to 24 h, default 24 h). */
    default Duration managerStandingTtl() {
        return settings().managerStandingTtl();
    }

    /** The service-endpoint setting; empty (the default) hosts no service-endpoint operations. */
    default Optional<ServiceEndpoints> serviceEndpoints() {
        return settings().serviceEndpoints();
    }

    /** All the write budgets of SPEC §13.20. */
    default WriteBudgets writeBudgets() {
        return settings().writeBudgets();
    }

    /** The replica count of the authority stores (default {@link StoreReplicas#one()}). */
    default StoreReplicas storeReplicas() {
        return settings().storeReplicas();
    }

    /** Where the actor ledger and the IdP pin live (default {@link LedgerStore#files()}). */
    default LedgerStore ledger() {
        return settings().ledger();
    }

    /** Whether an embedder's {@code MeterSink} was given (SPEC §13.21). */
    default boolean metered() {
        return settings().metered();
    }
}
