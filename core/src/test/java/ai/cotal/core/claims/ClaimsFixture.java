package ai.cotal.core.claims;

import ai.cotal.core.config.AccountResolver;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** A broker trust with spaces, a full-resolver config for the test broker and the claims connection. */
final class ClaimsFixture {
    static final Duration WAIT = Duration.ofSeconds(5);

    final Clock clock = Clock.systemUTC();
    final BrokerAuth broker = BrokerAuth.create("claims", clock);
    final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
    final SpaceAccountAuth beta = SpaceAccountAuth.create(broker, "beta", clock);
    final Creds claimsCreds = Creds.mintSystem(broker, Identity.create(), CredentialProfile.ACCOUNT_CLAIMS, null,
            MintOptions.defaults());

    /** A full-resolver config preloading {@code alpha} only. */
    String config(NatsBroker nats, int limit) {
        return ServerConfig.render(broker, List.of(alpha), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(nats.storeDir())
                .resolver(AccountResolver.full(nats.workDir().resolve("account-jwts"), limit, Duration.ofMinutes(2)))
                .build());
    }

    Connection system(NatsBroker nats) {
        return NatsConnector.builder().server(nats.url()).creds(claimsCreds).label("account-claims").build().connect();
    }

    Creds mint(SpaceAccountAuth space, CredentialProfile profile, MintOptions options) {
        return Creds.mint(new ai.cotal.core.trust.SpaceAuth(broker, space), Identity.create(), profile, options);
    }
}
