package ai.cotal.cli;

import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.BrokerPolicy;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.workspace.BrokerPolicies;
import ai.cotal.workspace.FileSecretStore;
import ai.cotal.workspace.SecretKeys;
import ai.cotal.workspace.TrustRecords;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The tenants of a root (SPEC §7.5): the spaces listed in {@code auth/accounts.json}, each with
 * its account record and its callout material in the root's file secret store; the broker record
 * and the {@code account-claims} credential that pushes their claims; and the broker config
 * rendered from all of them. A tenant's state is the claim it holds: {@code conn = 0} is retired.
 */
final class Tenants {
    /** The broker policy a root made here gets: plaintext, the full resolver. */
    static final BrokerPolicy POLICY = new BrokerPolicy(Transport.plaintext(),
            Optional.of(new BrokerPolicy.FullResolver(10_000, Duration.ofMinutes(2))));

    /** One tenant as read: its account and callout, or the reason it is unreadable. */
    record Tenant(String space, SpaceAccountAuth account, CalloutAuth callout, String problem) {
        boolean readable() {
            return problem == null;
        }

        boolean retired() {
            return Tenants.retired(account.jwt());
        }

        @Override
        public String toString() {
            return "Tenant[" + space + (readable() ? "" : ", unreadable") + "]";
        }
    }

    private final Path root;
    private final Clock clock;
    private final FileSecretStore secrets;
    private final TrustRecords records;

    Tenants(Path root, Clock clock) {
        this.root = root.toAbsolutePath().normalize();
        this.clock = clock;
        this.secrets = new FileSecretStore(this.root);
        this.records = new TrustRecords(secrets, clock);
    }

    FileSecretStore secrets() {
        return secrets;
    }

    /** True when {@code accountJwt} is a retired claim ({@code limits.conn = 0}, SPEC §5.2). */
    static boolean retired(String accountJwt) {
        AccountClaim claim = NatsJwt.decode(accountJwt, AccountClaim.class).nats();
        return claim.limits() != null && claim.limits().admitsNoConnection();
    }

    /** The broker record; {@code failed-precondition} when the root has none yet. */
    BrokerAuth broker() {
        return records.loadBroker().orElseThrow(() -> CotalException.failedPrecondition("root: " + root
                + " has no broker record (auth/broker.json): add a space first"));
    }

    /**
     * The broker record, created when there is none: a new operator and system account, the broker
     * policy (plaintext, full resolver), the {@code account-claims} credential, and the system
     * account's seed, kept in the root's store beside the operator's ({@link SecretKeys#systemAccountSeedKey}):
     * each space added gets its membership observer and connection evictor minted with it. (The
     * operator's key, which the root holds anyway, can re-sign the system account; its seed at rest
     * beside it gives a thief of the root nothing more.) An existing policy must use the full resolver.
     */
    BrokerAuth ensureBroker() {
        Optional<BrokerPolicy> policy = BrokerPolicies.readBrokerPolicy(root);
        if (policy.isPresent() && policy.get().accountResolver().isEmpty()) {
            throw CotalException.failedPrecondition("broker-policy.json: the per-space lifecycle needs the full resolver");
        }
        Optional<BrokerAuth> existing = records.loadBroker();
        if (existing.isPresent()) {
            if (secrets.get(SecretKeys.accountClaimsCredsKey()).isEmpty()) {
                throw CotalException.failedPrecondition("root: " + SecretKeys.accountClaimsCredsKey() + " is missing; this"
                        + " root's broker was not made by cotal-auth, so it cannot push claims");
            }
            return existing.get();
        }
        if (policy.isEmpty()) {
            BrokerPolicies.writeBrokerPolicy(root, POLICY);
        }
        BrokerAuth created = BrokerAuth.create("cotal", clock);
        secrets.putText(SecretKeys.systemAccountSeedKey(), created.systemSigner().orElseThrow().seed());
        secrets.putText(SecretKeys.accountClaimsCredsKey(), Creds.mintSystem(created, Identity.create(),
                CredentialProfile.ACCOUNT_CLAIMS, null, MintOptions.defaults()).text());
        records.saveBroker(created);
        return broker();
    }

    /** The credential claims are pushed with. */
    Creds claimsCreds() {
        return Creds.parse(secrets.getText(SecretKeys.accountClaimsCredsKey()).orElseThrow(() -> CotalException
                .failedPrecondition("root: " + SecretKeys.accountClaimsCredsKey() + " is missing")));
    }

    /** Every tenant, in the order added; an unreadable one carries its problem instead of its records. */
    List<Tenant> read() {
        List<Tenant> tenants = new ArrayList<>();
        BrokerAuth broker = broker();
        for (String space : records.spaces()) {
            tenants.add(read(space, broker));
        }
        return tenants;
    }

    private Tenant read(String space, BrokerAuth broker) {
        try {
            SpaceAccountAuth account = records.loadAccount(space).orElseThrow(() -> new CotalException(ErrorCode.DATA_LOSS,
                    SecretKeys.accountKey(space) + " is missing"));
            account.requireSignedBy(broker, clock);
            CalloutAuth callout = ServiceMaterial.load(secrets, space).callout();
            return new Tenant(space, account, callout, null);
        } catch (CotalException e) {
            return new Tenant(space, null, null, e.code().wire() + ": " + e.getMessage());
        }
    }

    /** The tenant {@code space}: {@code not-found} when it is none, {@code data-loss} when unreadable. */
    Tenant require(String space) {
        if (!records.spaces().contains(space)) {
            throw new CotalException(ErrorCode.NOT_FOUND, "space: '" + space + "' is not a tenant of " + root);
        }
        Tenant tenant = read(space, broker());
        if (!tenant.readable()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "space '" + space + "': its tenant record is unreadable ("
                    + tenant.problem() + ")");
        }
        return tenant;
    }

    /**
     * The tenant {@code space}, created when it is none: data account, callout account and the
     * space's secrets first ({@link SpaceProvisioning}, without the system credentials), the
     * account record last (so a listed tenant is complete).
     */
    Tenant add(String space, BrokerAuth broker) {
        if (records.spaces().contains(space)) {
            return require(space);
        }
        SpaceAccountAuth account = SpaceAccountAuth.create(broker, space, clock);
        CalloutAuth callout = CalloutAuth.create(space, broker, account.accountPublicKey(), clock);
        // an interrupted add left its account's material under no record: that account is dropped
        secrets.delete(SecretKeys.serviceKeysKey(space));
        secrets.delete(SecretKeys.calloutKey(space));
        Optional<BrokerAuth> minting = withSystemSigner(broker);
        if (minting.isPresent()) { // every secret, the observer and the evictor too
            SpaceProvisioning.forSpace(new SpaceAuth(minting.get(), account), callout).complete(secrets);
        } else { // a root from before the system seed was kept: a plane of this space refuses, naming the two
            SpaceProvisioning.forSpace(new SpaceAuth(broker, account), callout).withoutSystemCredentials().complete(secrets);
        }
        records.saveAccount(account);
        return require(space);
    }

    /** {@code broker} with the system account's key the root keeps; empty for a root that keeps none. */
    private Optional<BrokerAuth> withSystemSigner(BrokerAuth broker) {
        return secrets.getText(SecretKeys.systemAccountSeedKey()).map(seed -> new BrokerAuth(broker.operator(),
                broker.operatorJwt(), broker.systemAccount(), broker.systemJwt(), Optional.of(NKeyPair.fromSeed(seed.trim(),
                        KeyType.ACCOUNT, SecretKeys.systemAccountSeedKey())), broker.generation()));
    }

    /**
     * Stores {@code claim} as the tenant's account claim (retired or reinstated); returns the tenant
     * as stored. The claim is verified first, so a refused one is never written: a claim dated
     * further ahead of this clock than its skew (each change is dated a second after the claim it
     * replaces, so many changes within one second run ahead) is refused {@code unavailable} with
     * the seconds to wait.
     */
    Tenant store(Tenant tenant, String claim) {
        SpaceAccountAuth account = tenant.account();
        SpaceAccountAuth next = new SpaceAccountAuth(account.space(), account.account(), account.signing(), claim);
        long ahead = NatsJwt.decode(claim).iat() - clock.instant().getEpochSecond() - ClaimVerifier.DEFAULT_SKEW.toSeconds();
        if (ahead > 0) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "space '" + account.space() + "': its next account claim"
                    + " would be dated ahead of this clock (each change is dated after the one it replaces); nothing"
                    + " was written: run the command again in " + ahead + " s");
        }
        next.requireSignedBy(broker(), clock);
        records.saveAccount(next);
        return require(tenant.space());
    }

    /**
     * The broker config of every tenant (SPEC §7.5 {@code up}): refused, naming each, while any
     * tenant is unreadable, and when there is none.
     */
    String render(String host, int port, Path storeDir) {
        BrokerAuth broker = broker();
        List<Tenant> tenants = read();
        List<String> unreadable = tenants.stream().filter(t -> !t.readable())
                .map(t -> "'" + t.space() + "' (" + t.problem() + ")").toList();
        if (!unreadable.isEmpty()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "tenant records unreadable: " + String.join(", ", unreadable)
                    + "; nothing was rendered (a render without them would lock their users out)");
        }
        if (tenants.isEmpty()) {
            throw CotalException.failedPrecondition("root: no tenants yet; add a space first");
        }
        BrokerPolicy policy = BrokerPolicies.readBrokerPolicy(root).orElseThrow(() -> CotalException.failedPrecondition(
                "root: " + BrokerPolicies.FILE + " is missing"));
        if (policy.accountResolver().isEmpty()) {
            throw CotalException.failedPrecondition("broker-policy.json: the per-space lifecycle needs the full resolver");
        }
        return ServerConfig.render(broker, tenants.stream().map(Tenant::account).toList(), ServerConfigOptions.builder()
                .host(host).port(port).transport(policy.transport()).policy(policy)
                .resolver(BrokerPolicies.brokerAccountResolver(root, policy)).storeDir(storeDir)
                .extraAccounts(tenants.stream().map(t -> t.callout().jwt()).toList()).build());
    }
}
