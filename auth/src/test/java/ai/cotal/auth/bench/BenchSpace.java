package ai.cotal.auth.bench;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import java.time.Clock;
import java.util.List;

/** The space "alpha" every auth scenario runs: its secret store and its loopback broker. */
final class BenchSpace {
    private BenchSpace() {
    }

    /** A secret store holding every secret of the space, provisioned with {@code callout}. */
    static InMemorySecretStore store(SpaceAuth auth, CalloutAuth callout) {
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, callout).write(store);
        return store;
    }

    /** A secret store holding every secret of the space, with a callout account of its own (a plane alone). */
    static InMemorySecretStore store(SpaceAuth auth) {
        return store(auth, CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), Clock.systemUTC()));
    }

    /**
     * Raises the plane's write budgets (SPEC §13.20) to their maximum: the throughput scenarios
     * measure the raw mint and issuance paths from one principal, far above what the default
     * budgets admit (FloodScenario measures the budgets themselves).
     */
    static ai.cotal.auth.AuthPlaneOptions.Builder unbudgeted(ai.cotal.auth.AuthPlaneOptions.Builder options) {
        return options.writeBudgets(UNBUDGETED);
    }

    /**
     * The signer's stock policy without its per-principal rates: a throughput scenario connects
     * one principal far faster than a member may.
     */
    static ai.cotal.signer.SignerPolicy unratedSignerPolicy(String space, String account) {
        StringBuilder json = new StringBuilder("{\"ver\":1,\"space\":\"" + space + "\",\"account\":\"" + account
                + "\",\"profiles\":{");
        String sep = "";
        for (var e : ai.cotal.signer.SignerPolicy.stock(space, account).profiles().entrySet()) {
            json.append(sep).append('"').append(e.getKey().label()).append("\":{\"maxLifetimeSeconds\":")
                    .append(e.getValue().maxLifetimeSeconds()).append(",\"withoutExpiry\":")
                    .append(e.getValue().withoutExpiry()).append(",\"perPrincipalPerMinute\":0}");
            sep = ",";
        }
        return ai.cotal.signer.SignerPolicy.parse(json.append("}}").toString()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The write budgets at their maximum, for a stock service in a throughput scenario. */
    static final ai.cotal.auth.WriteBudgets UNBUDGETED = new ai.cotal.auth.WriteBudgets(1_000_000, 1_000_000, 1_000_000,
            1_000_000, 1_000_000, 1_000_000);

    /** A plaintext broker with the space and {@code extraAccountJwts} (a callout account). */
    static NatsBroker broker(SpaceAuth auth, String... extraAccountJwts) {
        return NatsBroker.start(BackendChoice.detect(), b -> ServerConfig.render(auth.broker(), List.of(auth.account()),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir())
                        .extraAccounts(List.of(extraAccountJwts)).build()));
    }
}
