package ai.cotal.core.issued;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.stores.IssuedStoreRetentionRefusal;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.stores.StoreSpecs;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** stage -> release -> accepted row, confirm and resolve, on the real broker with an issuer credential. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class IssuedAuthorityBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("issued", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
    private final Ceiling ceiling = new Ceiling(Ceiling.Side.patterns(List.of("cotal.alpha.chat.>"), List.of()),
            Ceiling.Side.none());
    private NatsBroker nats;
    private Client issuer;
    private Client admin;

    @BeforeEach
    void start(NatsBrokers brokers) throws Exception {
        nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client provisioner = connect(nats, mint(CredentialProfile.PROVISIONER))) {
            SpaceStores.setup(provisioner.connection(), "alpha");
        }
        issuer = connect(nats, mint(CredentialProfile.ISSUER));
        admin = connect(nats, BrokerClients.unrestricted(space));
    }

    @org.junit.jupiter.api.AfterEach
    void close() throws Exception {
        issuer.close();
        admin.close();
    }

    private Creds mint(CredentialProfile profile) {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), profile, MintOptions.defaults());
    }

    private IssuedRef ref() {
        return new IssuedRef("alpha", "u_abcdefghijklmnopqrstuvwxyz", "a1", "abcdefghijklmnopqrstuvwxyz", IssuedAuthority.newGeneration());
    }

    private IssuedAuthority bind(SourceLiveness liveness) {
        return IssuedAuthority.bind(issuer.connection(), "alpha", liveness, clock);
    }

    @Test
    void stagedAndReleasedIssuanceResolvesAndRenewsOnlyWithTheSameCeiling() {
        IssuedAuthority authority = bind(source -> true);
        IssuedRef ref = ref();
        String token = IssuedAuthority.acceptedToken("ibx0123456789abcdef");
        List<Source> sources = List.of(new Source("alpha", "cotal_auth_alpha", "actor.o1.a1"));
        IssuedAuthority.Staged staged = authority.stage(ref, sources, ceiling, Optional.empty());
        assertEquals(staged, authority.stage(ref, sources, ceiling, Optional.empty()), "a replayed stage finds its own work");
        authority.release(staged, token);
        authority.release(staged, token);
        IssuedAuthority.Resolved resolved = authority.resolve(token);
        assertEquals(ref, resolved.ref());
        assertEquals(ceiling, resolved.permissions());
        assertEquals(ref, authority.confirm(token, ceiling));
        CotalException narrowed = assertThrows(CotalException.class, () -> authority.confirm(token,
                new Ceiling(Ceiling.Side.patterns(List.of("cotal.alpha.chat.x"), List.of()), Ceiling.Side.none())));
        assertEquals(ErrorCode.CONFLICT, narrowed.code());
    }

    @Test
    void aRevokedIssuanceIsNeverConfirmedAgain() {
        IssuedAuthority authority = bind(source -> true);
        IssuedRef ref = ref();
        String token = IssuedAuthority.acceptedToken("conn-confirm-revoked-1");
        authority.release(authority.stage(ref, List.of(new Source("alpha", "cotal_auth_alpha", "actor.o1.a1")), ceiling,
                Optional.empty()), token);
        assertEquals(ref, authority.confirm(token, ceiling), "an active issuance confirms");
        authority.revoke(ref);
        CotalException e = assertThrows(CotalException.class, () -> authority.confirm(token, ceiling));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals("issuance " + ref.key() + " was revoked: it is never confirmed again; a new connection id needs a"
                + " new issuance", e.getMessage());
    }

    @Test
    void aReusedGenerationIsRefused() {
        IssuedAuthority authority = bind(source -> true);
        IssuedRef ref = ref();
        authority.stage(ref, List.of(), ceiling, Optional.of(Instant.now().plusSeconds(60).getEpochSecond()));
        CotalException e = assertThrows(CotalException.class, () -> authority.stage(ref, List.of(), ceiling,
                Optional.of(Instant.now().plusSeconds(61).getEpochSecond())));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
    }

    @Test
    void resolveRefusesDeadSourcesExpiryAndRevocation() {
        AtomicBoolean live = new AtomicBoolean(true);
        IssuedAuthority authority = bind(source -> live.get());
        String token = IssuedAuthority.acceptedToken("conn-source-1");
        authority.release(authority.stage(ref(), List.of(new Source("alpha", "cotal_auth_alpha", "actor.o1.a1")), ceiling,
                Optional.empty()), token);
        live.set(false);
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> authority.resolve(token)).code());

        String expiring = IssuedAuthority.acceptedToken("conn-expiry-1");
        authority.release(authority.stage(ref(), List.of(), ceiling, Optional.of(clock.instant().getEpochSecond() + 60)), expiring);
        authority.resolve(expiring);
        IssuedAuthority later = IssuedAuthority.bind(issuer.connection(), "alpha", source -> true,
                Clock.offset(clock, Duration.ofSeconds(61)));
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> later.resolve(expiring)).code());

        IssuedRef revokedRef = ref();
        String revoked = IssuedAuthority.acceptedToken("conn-revoke-1");
        authority.release(authority.stage(revokedRef, List.of(), ceiling, Optional.of(clock.instant().getEpochSecond() + 60)), revoked);
        authority.revoke(revokedRef);
        authority.revoke(revokedRef);
        CotalException e = assertThrows(CotalException.class, () -> authority.resolve(revoked));
        assertTrue(e.getMessage().contains("revoked"), e.getMessage());
    }

    @Test
    void anIssuanceWithoutSourcesMustExpire() {
        CotalException e = assertThrows(CotalException.class, () -> bind(source -> true).stage(ref(), List.of(), ceiling,
                Optional.empty()));
        assertTrue(e.getMessage().startsWith("expiresAt"), e.getMessage());
    }

    @Test
    void aDeletionMarkerIsCorruptionNotAbsence() throws Exception {
        IssuedAuthority authority = bind(source -> true);
        IssuedRef ref = ref();
        String token = IssuedAuthority.acceptedToken("conn-marker-1");
        authority.release(authority.stage(ref, List.of(), ceiling, Optional.of(clock.instant().getEpochSecond() + 60)), token);
        KeyValue kv = admin.connection().keyValue("cotal_issued_alpha");
        kv.delete("attempt.v1." + ref.key());
        CotalException e = assertThrows(CotalException.class, () -> authority.resolve(token));
        assertEquals(ErrorCode.DATA_LOSS, e.code());
    }

    @Test
    void storesFromBeforeBoundedRetentionAreRefusedNamingTheRecreationStep() throws Exception {
        JetStreamManagement jsm = admin.connection().jetStreamManagement();
        jsm.deleteStream("KV_cotal_issued_alpha");
        jsm.addStream(StreamConfiguration.builder(StoreSpecs.issued("alpha")).maxAge(Duration.ZERO).build());
        admin.connection().keyValue("cotal_issued_alpha").put("v1.old", "{}".getBytes(StandardCharsets.UTF_8));
        IssuedStoreRetentionRefusal e = assertThrows(IssuedStoreRetentionRefusal.class, () -> bind(source -> true));
        assertTrue(e.getMessage().contains("IssuedStores.recreate"), e.getMessage());
    }
}
