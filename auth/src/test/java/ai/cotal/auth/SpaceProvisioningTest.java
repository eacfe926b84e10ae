package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.SpaceProvisioning.Role;
import ai.cotal.auth.SpaceProvisioning.Secret;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.workspace.SecretKeys;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One door writes a space's secrets create-only, and one check names what a store lacks (SPEC §13.22). */
class SpaceProvisioningTest {
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);

    private static List<String> keys(Role role) {
        return role.needs().stream().map(s -> s.key("alpha")).toList();
    }

    /** An in-memory store that records the order of the keys created in it. */
    private static class Recording implements SecretStore {
        final InMemorySecretStore inner = new InMemorySecretStore();
        final List<String> created = new ArrayList<>();

        @Override
        public Optional<byte[]> get(String key) {
            return inner.get(key);
        }

        @Override
        public void put(String key, byte[] value) {
            inner.put(key, value);
        }

        @Override
        public boolean create(String key, byte[] value) {
            boolean won = inner.create(key, value);
            if (won) {
                created.add(key);
            }
            return won;
        }

        @Override
        public void delete(String key) {
            inner.delete(key);
        }
    }

    @Test
    void writeCreatesEverySecretEachReaderLoadsInWriteOrder() {
        Recording store = new Recording();
        assertEquals(keys(Role.SERVICE), SpaceProvisioning.missing(store, "alpha"), "an empty store lacks everything");
        SpaceProvisioning.forSpace(auth, callout).write(store);
        assertEquals(Arrays.stream(Secret.values()).map(s -> s.key("alpha")).toList(), store.created);
        for (Role role : Role.values()) {
            if (role != Role.SERVICE_WITH_REMOTE_SIGNER && role != Role.REPLICA_WITH_REMOTE_SIGNER) {
                assertEquals(List.of(), SpaceProvisioning.missing(store, "alpha", role), role.name());
            }
        }
        ServiceMaterial.Loaded loaded = ServiceMaterial.load(store, "alpha");
        assertEquals(auth.account().accountPublicKey(), loaded.signer().accountPublicKey());
        assertEquals(callout.accountPublicKey(), loaded.callout().accountPublicKey());
        BearerIssuer.load(store, "alpha", clock);
        String observer = Creds.parse(store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()).jwt();
        assertTrue(ai.cotal.core.jwt.NatsJwt.decode(observer, ai.cotal.core.jwt.UserClaim.class).nats().pub().allow()
                .contains("$SYS.REQ.ACCOUNT." + auth.account().accountPublicKey() + ".CONNZ"), "it watches the data account");
        Creds.parse(store.getText(SecretKeys.connectionEvictorCredsKey("alpha")).orElseThrow());
    }

    @Test
    void aReplicaLoadsFromTheServiceKeysCalloutAndIssuerAloneWithoutTheOwnerSecret() {
        Recording full = new Recording();
        SpaceProvisioning.forSpace(auth, callout).write(full);
        InMemorySecretStore replica = new InMemorySecretStore();
        for (Secret secret : List.of(Secret.SERVICE_KEYS, Secret.CALLOUT, Secret.ISSUER_KEYS)) {
            replica.put(secret.key("alpha"), full.get(secret.key("alpha")).orElseThrow());
        }
        assertEquals(List.of(), SpaceProvisioning.missing(replica, "alpha", Role.REPLICA));
        assertEquals(callout.accountPublicKey(), ServiceMaterial.load(replica, "alpha").callout().accountPublicKey(),
                "a replica's store needs no owner-secret.json");
        replica.delete(Secret.ISSUER_KEYS.key("alpha"));
        CotalException refused = assertThrows(CotalException.class, () -> ServiceMaterial.load(replica, "alpha"));
        assertTrue(refused.getMessage().contains(Secret.ISSUER_KEYS.key("alpha")), refused.getMessage());
    }

    @Test
    void writeOverAnyExistingSecretRefusesNamingItBeforeWritingAnything() {
        InMemorySecretStore store = new InMemorySecretStore();
        store.putText(SecretKeys.ownerSecretKey("alpha"), "kept");
        store.putText(SecretKeys.connectionEvictorCredsKey("alpha"), "kept too");
        CotalException refused = assertThrows(CotalException.class, () -> SpaceProvisioning.forSpace(auth, callout)
                .write(store));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
        assertTrue(refused.getMessage().contains(SecretKeys.ownerSecretKey("alpha"))
                && refused.getMessage().contains(SecretKeys.connectionEvictorCredsKey("alpha")), refused.getMessage());
        assertEquals(List.of(SecretKeys.serviceKeysKey("alpha"), SecretKeys.calloutKey("alpha"),
                SecretKeys.issuerKeysKey("alpha"), SecretKeys.membershipObserverCredsKey("alpha")),
                SpaceProvisioning.missing(store, "alpha"), "nothing was written");
        assertEquals("kept", store.getText(SecretKeys.ownerSecretKey("alpha")).orElseThrow());
    }

    @Test
    void completeWritesOnlyWhatIsMissingAndKeepsTheRestAsItIs() {
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, callout).write(store);
        byte[] owner = store.get(SecretKeys.ownerSecretKey("alpha")).orElseThrow();
        byte[] issuer = store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow();
        // a crash after the first three writes leaves the rest missing
        store.delete(SecretKeys.ownerSecretKey("alpha"));
        store.delete(SecretKeys.membershipObserverCredsKey("alpha"));
        store.delete(SecretKeys.connectionEvictorCredsKey("alpha"));
        assertEquals(List.of(SecretKeys.ownerSecretKey("alpha"), SecretKeys.membershipObserverCredsKey("alpha"),
                SecretKeys.connectionEvictorCredsKey("alpha")), SpaceProvisioning.missing(store, "alpha"));
        assertEquals(List.of(SecretKeys.ownerSecretKey("alpha"), SecretKeys.membershipObserverCredsKey("alpha"),
                SecretKeys.connectionEvictorCredsKey("alpha")), SpaceProvisioning.forSpace(auth, callout).complete(store));
        assertEquals(List.of(), SpaceProvisioning.missing(store, "alpha"));
        assertArrayEquals(issuer, store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow(), "the issuer key is kept");
        assertFalse(Arrays.equals(owner, store.get(SecretKeys.ownerSecretKey("alpha")).orElseThrow()), "a new one");
        assertEquals(List.of(), SpaceProvisioning.forSpace(auth, callout).complete(store), "complete again writes nothing");
    }

    @Test
    void aRacingProvisionerThatCreatedASecretFirstIsAlreadyExists() {
        Recording store = new Recording() {
            private boolean raced;

            @Override
            public Optional<byte[]> get(String key) {
                if (key.equals(SecretKeys.issuerKeysKey("alpha")) && !raced) {
                    raced = true; // the other provisioner's create lands right after this check
                    inner.create(key, "theirs".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    return Optional.empty();
                }
                return super.get(key);
            }
        };
        CotalException raced = assertThrows(CotalException.class, () -> SpaceProvisioning.forSpace(auth, callout)
                .write(store));
        assertEquals(ErrorCode.ALREADY_EXISTS, raced.code());
        assertTrue(raced.getMessage().contains(SecretKeys.issuerKeysKey("alpha")), raced.getMessage());
        assertEquals("theirs", store.getText(SecretKeys.issuerKeysKey("alpha")).orElseThrow(), "never replaced");
        assertEquals(List.of(SecretKeys.ownerSecretKey("alpha"), SecretKeys.membershipObserverCredsKey("alpha"),
                SecretKeys.connectionEvictorCredsKey("alpha")), SpaceProvisioning.missing(store, "alpha"),
                "what the refused write had not reached yet");
        assertEquals(SpaceProvisioning.missing(store, "alpha"), SpaceProvisioning.forSpace(auth, callout).complete(store));
        assertEquals(List.of(), SpaceProvisioning.missing(store, "alpha"), "complete finished the store");
    }

    @Test
    void aRemoteSignerStoreHoldsNoSeedAndTheSystemCredentialsNeedTheSystemKey() {
        InMemorySecretStore remote = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, callout).remoteSigner().write(remote);
        assertTrue(remote.get(SecretKeys.serviceKeysKey("alpha")).isEmpty(), "the seed stays with the signer");
        assertEquals(List.of(), SpaceProvisioning.missing(remote, "alpha", Role.SERVICE_WITH_REMOTE_SIGNER));
        assertEquals(List.of(SecretKeys.serviceKeysKey("alpha")), SpaceProvisioning.missing(remote, "alpha"));

        SpaceAuth persisted = new SpaceAuth(auth.broker().withoutSystemSigner(), auth.account());
        InMemorySecretStore store = new InMemorySecretStore();
        CotalException noKey = assertThrows(CotalException.class, () -> SpaceProvisioning.forSpace(persisted, callout)
                .write(store));
        assertEquals(ErrorCode.FAILED_PRECONDITION, noKey.code());
        assertTrue(noKey.getMessage().startsWith("systemSigner"), noKey.getMessage());
        assertEquals(keys(Role.SERVICE), SpaceProvisioning.missing(store, "alpha"), "nothing was written");
        SpaceProvisioning.forSpace(persisted, callout).withoutSystemCredentials().write(store);
        CotalException plane = assertThrows(CotalException.class, () -> SpaceProvisioning.require(store, "alpha",
                Role.PLANE));
        assertEquals(ErrorCode.FAILED_PRECONDITION, plane.code());
        assertEquals("the authority plane of space \"alpha\" is not provisioned: the secret store lacks "
                + SecretKeys.membershipObserverCredsKey("alpha") + ", " + SecretKeys.connectionEvictorCredsKey("alpha")
                + " (SpaceProvisioning writes them)", plane.getMessage());
        assertEquals(List.of(SecretKeys.membershipObserverCredsKey("alpha"), SecretKeys.connectionEvictorCredsKey("alpha")),
                SpaceProvisioning.forSpace(auth, callout).complete(store), "a trust holding the key completes it");
    }

    @Test
    void badInputIsRefusedNamingTheField() {
        CalloutAuth beta = CalloutAuth.create("beta", auth.broker(), auth.account().accountPublicKey(), clock);
        CotalException other = assertThrows(CotalException.class, () -> SpaceProvisioning.forSpace(auth, beta));
        assertEquals(ErrorCode.BAD_REQUEST, other.code());
        assertTrue(other.getMessage().startsWith("callout"), other.getMessage());
        CotalException space = assertThrows(CotalException.class, () -> SpaceProvisioning.missing(
                new InMemorySecretStore(), " "));
        assertEquals(ErrorCode.BAD_REQUEST, space.code());
        assertTrue(space.getMessage().startsWith("space"), space.getMessage());
    }
}
