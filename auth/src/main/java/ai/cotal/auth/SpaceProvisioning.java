package ai.cotal.auth;

import ai.cotal.auth.internal.secrets.IssuerKey;
import ai.cotal.auth.internal.secrets.OwnerSecret;
import ai.cotal.auth.internal.secrets.ServiceDocuments;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.core.id.SpaceName;
import ai.cotal.workspace.SecretKeys;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Provisions a space's secrets in a {@link SecretStore}, the one way to write them (SPEC §13.22):
 * everything the space's {@link AuthAuthorityPlane}, its stock service, a callout replica and the
 * plane's membership observer and connection evictor read. {@link #missing} names, by store key,
 * what a store still lacks; the plane's open, the stock service's start and a replica's load use
 * the same check and refuse, naming every missing secret, before any connection.
 *
 * <pre>{@code
 * SpaceProvisioning space = SpaceProvisioning.create("alpha", clock); // new keys for a new space
 * space.write(store);
 * SpaceProvisioning.forSpace(auth, callout).complete(store);          // finish a half-provisioned one
 * }</pre>
 *
 * <p>Every secret is created, never replaced: {@link #write} refuses a store that holds any
 * of them, {@link #complete} writes only those {@link #missing} lists. Not thread-safe: confine
 * an instance to one thread; the static checks are thread-safe.
 */
public final class SpaceProvisioning {

    /** One secret of a space, in the order provisioning writes them. */
    public enum Secret {
        /** The data account's public key and signing seed ({@code service-keys.json}); kept by a remote signer instead. */
        SERVICE_KEYS(SecretKeys::serviceKeysKey),
        /** The callout account, its credentials and xkey ({@code callout.json}). */
        CALLOUT(SecretKeys::calloutKey),
        /** The bearer issuer's Ed25519 key ({@code issuer.json}). */
        ISSUER_KEYS(SecretKeys::issuerKeysKey),
        /** The owner-derivation secret ({@code owner-secret.json}). */
        OWNER_SECRET(SecretKeys::ownerSecretKey),
        /** The system-account credential that lists the data account's connections ({@code membership-observer.creds}). */
        MEMBERSHIP_OBSERVER(SecretKeys::membershipObserverCredsKey),
        /** The system-account credential that kicks a connection ({@code connection-evictor.creds}). */
        CONNECTION_EVICTOR(SecretKeys::connectionEvictorCredsKey);

        private final Function<String, String> key;

        Secret(Function<String, String> key) {
            this.key = key;
        }

        /** This secret's key in the store of {@code space}. */
        public String key(String space) {
            return key.apply(space);
        }
    }

    /** Who reads a space's secrets, and which of them each needs. */
    public enum Role {
        /** The authority plane: the issuer key, the owner secret, the observer and the evictor. */
        PLANE("the authority plane", Secret.ISSUER_KEYS, Secret.OWNER_SECRET, Secret.MEMBERSHIP_OBSERVER,
                Secret.CONNECTION_EVICTOR),
        /** The stock service signing in process: every secret. */
        SERVICE("the auth service", Secret.values()),
        /** The stock service signing through a remote signer: every secret but the service keys. */
        SERVICE_WITH_REMOTE_SIGNER("the auth service", Secret.CALLOUT, Secret.ISSUER_KEYS, Secret.OWNER_SECRET,
                Secret.MEMBERSHIP_OBSERVER, Secret.CONNECTION_EVICTOR),
        /**
         * A callout replica signing in process: the service keys, the callout and the issuer key. A
         * replica derives no owner (a bearer carries it), so it needs no owner secret.
         */
        REPLICA("the callout replica", Secret.SERVICE_KEYS, Secret.CALLOUT, Secret.ISSUER_KEYS),
        /** A callout replica signing through a remote signer: the callout and the issuer key. */
        REPLICA_WITH_REMOTE_SIGNER("the callout replica", Secret.CALLOUT, Secret.ISSUER_KEYS);

        private final String who;
        private final Set<Secret> needs;

        Role(String who, Secret... needs) {
            this.who = who;
            EnumSet<Secret> set = EnumSet.noneOf(Secret.class);
            Collections.addAll(set, needs);
            this.needs = Collections.unmodifiableSet(set);
        }

        /** The secrets this role reads, in write order. */
        public Set<Secret> needs() {
            return needs;
        }
    }

    /**
     * The store keys of every secret {@link Role#SERVICE} needs (everything a default
     * {@link #write} writes) that {@code store} lacks, in write order; empty when the space
     * is fully provisioned. Only presence is checked; each reader validates what it loads.
     */
    public static List<String> missing(SecretStore store, String space) {
        return missing(store, space, Role.SERVICE);
    }

    /** The store keys of the secrets {@code role} needs that {@code store} lacks, in write order. */
    public static List<String> missing(SecretStore store, String space, Role role) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(role, "role");
        SpaceName.of(space, "space");
        List<String> missing = new ArrayList<>();
        for (Secret secret : role.needs()) {
            if (store.get(secret.key(space)).isEmpty()) {
                missing.add(secret.key(space));
            }
        }
        return missing;
    }

    /**
     * Refuses, {@code failed-precondition} naming every missing key, unless {@code store} holds
     * every secret {@code role} needs; the check of the plane's open and the service's start.
     */
    public static void require(SecretStore store, String space, Role role) {
        List<String> missing = missing(store, space, role);
        if (!missing.isEmpty()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, role.who + " of space \"" + space
                    + "\" is not provisioned: the secret store lacks " + String.join(", ", missing)
                    + " (SpaceProvisioning writes them)");
        }
    }

    /**
     * Provisioning for the space of {@code auth}: its data account (the service keys) and its broker
     * trust, which must still hold the system account's key (the observer and the evictor are
     * minted with it), and its {@code callout} material.
     */
    public static SpaceProvisioning forSpace(SpaceAuth auth, CalloutAuth callout) {
        return new SpaceProvisioning(auth, callout);
    }

    /**
     * The provisioning of a new space {@code space}: a new trust chain (operator, system account,
     * the space's data account: {@link SpaceAuth#create}) and a new callout account for it
     * ({@link CalloutAuth#create}), dated by {@code clock}. Nothing is written until {@link #write}.
     */
    public static SpaceProvisioning create(String space, Clock clock) {
        SpaceAuth auth = SpaceAuth.create(space, clock);
        return new SpaceProvisioning(auth, CalloutAuth.create(space, auth.broker(), auth.account().accountPublicKey(),
                clock)).clock(clock);
    }

    /** The trust chain this provisioning writes from (its operator, system account and data account). */
    public SpaceAuth auth() {
        return auth;
    }

    /** The space's callout account, for {@link AuthPlaneOptions.Builder#callout} and the broker's config. */
    public CalloutAuth callout() {
        return callout;
    }

    /** The data account's signer ({@link SpaceAuth#strip}), for {@link AuthPlaneOptions.Builder#signer}. */
    public SpaceSigner signer() {
        return auth.strip();
    }

    /**
     * The nats-server config of a broker that serves this one space ({@link ServerConfig#render}):
     * its operator, system account and data account, and the callout account among the extra
     * accounts (added to those {@code options} names), so the broker sends the space's connects to
     * its auth callout.
     */
    public String serverConfig(ServerConfigOptions options) {
        List<String> extra = new ArrayList<>(options.extraAccounts());
        extra.add(callout.jwt());
        return ServerConfig.render(auth.broker(), List.of(auth.account()), options.withExtraAccounts(extra));
    }

    private final SpaceAuth auth;
    private final CalloutAuth callout;
    private Role role = Role.SERVICE;
    private Clock clock = Clock.systemUTC();
    private boolean systemCredentials = true;

    private SpaceProvisioning(SpaceAuth auth, CalloutAuth callout) {
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(callout, "callout");
        if (!auth.account().space().equals(callout.space())) {
            throw CotalException.badRequest("callout", "belongs to space '" + callout.space() + "', not '"
                    + auth.account().space() + "'");
        }
        this.auth = auth;
        this.callout = callout;
    }

    /**
     * The data account's signing seed lives with a remote signer (SPEC §16.4): the service keys
     * are not written, and what is missing is judged for {@link Role#SERVICE_WITH_REMOTE_SIGNER}.
     */
    public SpaceProvisioning remoteSigner() {
        role = Role.SERVICE_WITH_REMOTE_SIGNER;
        return this;
    }

    /**
     * Leaves out the membership observer and the connection evictor, for a broker trust that no
     * longer holds the system account's key (it is held only right after creation or rotation).
     * The space's plane refuses to open, naming both, until {@link #complete} with a trust
     * that holds the key writes them.
     */
    public SpaceProvisioning withoutSystemCredentials() {
        systemCredentials = false;
        return this;
    }

    /** The clock the system credentials are dated by (default UTC). */
    public SpaceProvisioning clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * Writes every secret, create-only, in {@link Secret} order. A store holding any of them is
     * refused {@code already-exists} naming each, before anything is written; so is a secret a
     * racing provisioner created first (what this call wrote before it stays: {@link #complete}
     * finishes the store). A broker trust without the system account's key is
     * {@code failed-precondition} before anything is written.
     */
    public void write(SecretStore store) {
        List<String> present = new ArrayList<>();
        for (Secret secret : secrets()) {
            if (store.get(secret.key(space())).isPresent()) {
                present.add(secret.key(space()));
            }
        }
        if (!present.isEmpty()) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, "space \"" + space() + "\": the secret store already"
                    + " holds " + String.join(", ", present) + "; provisioning never replaces a secret (complete"
                    + " writes only what is missing)");
        }
        create(store, documents(secrets()));
    }

    /**
     * Writes only the secrets {@link #missing} lists for this provisioning
     * (present ones are kept exactly as they are, unread) and answers their keys; empty when the
     * store was complete. A secret a racing provisioner created first is {@code already-exists}.
     */
    public List<String> complete(SecretStore store) {
        EnumSet<Secret> absent = EnumSet.noneOf(Secret.class);
        for (Secret secret : secrets()) {
            if (store.get(secret.key(space())).isEmpty()) {
                absent.add(secret);
            }
        }
        if (absent.isEmpty()) {
            return List.of();
        }
        Map<String, byte[]> documents = documents(absent);
        create(store, documents);
        return List.copyOf(documents.keySet());
    }

    /** What this provisioning writes, in write order. */
    private Set<Secret> secrets() {
        EnumSet<Secret> secrets = EnumSet.copyOf(role.needs());
        if (!systemCredentials) {
            secrets.removeAll(EnumSet.of(Secret.MEMBERSHIP_OBSERVER, Secret.CONNECTION_EVICTOR));
        }
        return secrets;
    }

    private String space() {
        return auth.account().space();
    }

    /** Every document, encoded (and the system credentials minted) before the first write. */
    private Map<String, byte[]> documents(Set<Secret> secrets) {
        Map<String, byte[]> documents = new LinkedHashMap<>();
        for (Secret secret : secrets) {
            documents.put(secret.key(space()), switch (secret) {
                case SERVICE_KEYS -> ServiceDocuments.serviceKeys(auth.account());
                case CALLOUT -> ServiceDocuments.callout(callout);
                case ISSUER_KEYS -> IssuerKey.newDocument(BearerClaims.issuerOf(space()));
                case OWNER_SECRET -> OwnerSecret.newDocument();
                case MEMBERSHIP_OBSERVER -> system(CredentialProfile.MEMBERSHIP_OBSERVER, auth.account().accountPublicKey());
                case CONNECTION_EVICTOR -> system(CredentialProfile.CONNECTION_EVICTOR, null);
            });
        }
        return documents;
    }

    private byte[] system(CredentialProfile profile, String dataAccount) {
        return Creds.mintSystem(auth.broker(), Identity.create(), profile, dataAccount,
                MintOptions.builder().clock(clock).build()).text().getBytes(StandardCharsets.UTF_8);
    }

    private static void create(SecretStore store, Map<String, byte[]> documents) {
        for (Map.Entry<String, byte[]> document : documents.entrySet()) {
            if (!store.create(document.getKey(), document.getValue())) {
                throw new CotalException(ErrorCode.ALREADY_EXISTS, "the secret store already holds "
                        + document.getKey() + ": another provisioner created it first; complete writes what is"
                        + " still missing");
            }
        }
    }
}
