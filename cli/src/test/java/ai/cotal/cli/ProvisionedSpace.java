package ai.cotal.cli;

import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.FileSecretStore;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Space {@code alpha} provisioned into a root's file secret store as {@code serve} expects it
 * (docs/cli.md): service keys, callout and the membership-observer credential; and the broker
 * configuration that trusts it.
 */
final class ProvisionedSpace {
    final SpaceAuth auth;
    final CalloutAuth callout;
    final FileSecretStore secrets;

    ProvisionedSpace(Path root, Clock clock) {
        auth = SpaceAuth.create("alpha", clock);
        callout = CalloutAuth.create("alpha", auth.broker(), auth.space().accountPublicKey(), clock);
        secrets = new FileSecretStore(root);
        ServiceMaterial.store(secrets, auth.space(), callout);
        secrets.putText(SecretKeys.membershipObserverCredsKey("alpha"), Creds.mintSystem(auth.broker(), Identity.create(),
                CredentialProfile.MEMBERSHIP_OBSERVER, auth.space().accountPublicKey(), MintOptions.defaults()).text());
    }

    /** Adds the connection-evictor credential a retirement kicks with. */
    ProvisionedSpace withEvictor() {
        secrets.putText(SecretKeys.connectionEvictorCredsKey("alpha"), Creds.mintSystem(auth.broker(), Identity.create(),
                CredentialProfile.CONNECTION_EVICTOR, null, MintOptions.defaults()).text());
        return this;
    }

    /** The configuration of {@code broker}: plaintext, the space's account and the callout account. */
    String config(NatsBroker broker) {
        return ServerConfig.render(auth.broker(), List.of(auth.space()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(broker.storeDir()).extraAccounts(List.of(callout.jwt())).build());
    }
}
