package ai.cotal.cli;

import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.FileSecretStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Space {@code alpha} provisioned into a root's file secret store as {@code serve} expects it
 * (docs/cli.md): every secret {@link SpaceProvisioning} writes; and the broker configuration that
 * trusts it.
 */
final class ProvisionedSpace {
    final SpaceAuth auth;
    final CalloutAuth callout;
    final FileSecretStore secrets;

    ProvisionedSpace(Path root, Clock clock) {
        auth = SpaceAuth.create("alpha", clock);
        callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        secrets = new FileSecretStore(root);
        SpaceProvisioning.forSpace(auth, callout).write(secrets);
    }

    /** The configuration of {@code broker}: plaintext, the space's account and the callout account. */
    String config(NatsBroker broker) {
        return ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(broker.storeDir()).extraAccounts(List.of(callout.jwt())).build());
    }
}
