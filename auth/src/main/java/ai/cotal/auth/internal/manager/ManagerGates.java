package ai.cotal.auth.internal.manager;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ServingGate;
import ai.cotal.auth.internal.manager.ServingDocuments.ManagerSpec;
import ai.cotal.auth.internal.manager.ServingDocuments.ManagerStatus;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The plane's {@link ManagerAuthority} (SPEC §14.3, §14.4). Gates are written on the plane's writer
 * connection only; specs, statuses and artifacts are read from the records store's leader. Each
 * public call first refuses unless the plane is serving; gate writes first observe the plane's own
 * registration. Thread-safe.
 */
public final class ManagerGates implements ManagerAuthority {
    static final String ENDPOINT = "manager";
    static final String GATE_PREFIX = "gate." + ENDPOINT + ".";
    private static final Duration MAX_TTL = Duration.ofHours(24);

    /** What the plane hands the manager gate. */
    public record Wiring(String space, SpaceSigner signer, ServingRecords records, ActorLedger ledger, Clock clock,
            Runnable refuseIfUnavailable, Runnable observeRegistration, Function<String, Map<String, byte[]>> scan,
            Duration serviceTtl) {
    }

    private final Wiring w;
    private final ContractArtifacts artifacts;
    private final ManagerSessions sessions;
    private final ManagerServiceCredentials service;

    public ManagerGates(Wiring wiring) {
        this.w = wiring;
        this.artifacts = new ContractArtifacts(wiring.records());
        this.sessions = new ManagerSessions(this, wiring, artifacts);
        this.service = new ManagerServiceCredentials(this, wiring, artifacts);
    }

    @Override
    public Session verifySession(Principal caller, String grant) {
        String callerOwner = caller.owner().value();
        String callerActor = caller.actor().value();
        return sessions.verify(callerOwner, callerActor, grant);
    }

    @Override
    public ServiceAuthority issueServiceAuthority(Principal manager, InstanceId instance, String userPublicKey,
            Optional<Renewal> renewing) {
        String owner = manager.owner().value();
        String actor = manager.actor().value();
        String instanceId = instance.value();
        return service.issue(owner, actor, instanceId, userPublicKey, renewing);
    }

    @Override
    public Creds registrarCredential(Principal manager, InstanceId instance, Duration ttl) {
        String owner = manager.owner().value();
        String actor = manager.actor().value();
        String instanceId = instance.value();
        checkPrincipal(owner, actor);
        checkInstance(instanceId);
        if (ttl == null || ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw CotalException.badRequest("ttl", "must be 1 s to 24 h");
        }
        w.refuseIfUnavailable().run();
        requireGranted(owner, actor);
        requireUnclaimedOrOwn(owner, actor, instanceId);
        Identity identity = Identity.create();
        String records = StoreNames.bucket("records", w.space());
        UserClaim body = UserClaim.of(Permission.allow(List.of("$KV." + records + ".svc.manager." + instanceId + ".>")),
                Permission.allow(List.of("_INBOX_" + identity.id() + ".>")), w.signer().accountPublicKey(),
                List.of("owner:" + owner, "actor:" + actor, "principal:" + owner + "." + actor));
        ClaimSet<UserClaim> claims = ClaimSet.of(identity.id(), "cotal:manager-registrar:" + instanceId, body,
                w.clock().instant()).withExp(w.clock().instant().plus(ttl).getEpochSecond());
        return new Creds(NatsJwt.encode(claims, w.signer().signing()), identity);
    }

    @Override
    public ServingGate openGate(Principal manager, InstanceId instance) {
        String owner = manager.owner().value();
        String actor = manager.actor().value();
        String instanceId = instance.value();
        checkPrincipal(owner, actor);
        checkInstance(instanceId);
        w.refuseIfUnavailable().run();
        w.observeRegistration().run();
        requireGranted(owner, actor);
        ServingRecords.Stored<ManagerSpec> spec = w.records().managerSpec(instanceId).orElseThrow(() ->
                new CotalException(ErrorCode.FAILED_PRECONDITION, "found no manager service spec for instance "
                        + instanceId));
        if (!spec.value().owner().equals(owner)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the manager service spec belongs to another owner");
        }
        if (!spec.value().actor().equals(actor)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the manager service spec names another actor");
        }
        artifacts.registeredManagerCluster(owner, instanceId, spec.revision());
        String principal = owner + "." + actor;
        Optional<ServingGate> read = w.records().gate(ENDPOINT, instanceId);
        long epoch;
        Optional<Long> written;
        if (read.isEmpty()) {
            epoch = 1;
            written = w.records().createGate(open(instanceId, principal, epoch, spec.revision()));
        } else {
            ServingGate gate = read.get();
            if (gate.state() != ServingGate.State.OPEN) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the manager gate of " + instanceId
                        + " is frozen; register a new instance");
            }
            if (!gate.principal().equals(principal)) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                        + " is served by another principal");
            }
            epoch = gate.processEpoch() + 1;
            written = w.records().replaceGate(open(instanceId, principal, epoch, spec.revision()), gate.revision());
        }
        if (written.isEmpty()) {
            throw new CotalException(ErrorCode.CONFLICT, "the manager gate of " + instanceId + " moved while it was opened");
        }
        ServingGate again = w.records().gate(ENDPOINT, instanceId).orElse(null);
        if (again == null || !again.openAt(epoch, spec.revision())) {
            throw new CotalException(ErrorCode.CONFLICT, "the manager gate of " + instanceId
                    + " is not open at this open's epoch");
        }
        return again;
    }

    /**
     * A registrar may write only an instance nobody else holds: its gate, when present, serves this
     * principal, and its spec, when present, names this owner and actor. Otherwise a member could
     * overwrite another member's spec and move it off its gate's registration revision.
     */
    private void requireUnclaimedOrOwn(String owner, String actor, String instanceId) {
        Optional<ServingGate> gate = w.records().gate(ENDPOINT, instanceId);
        if (gate.isPresent() && !gate.get().principal().equals(owner + "." + actor)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                    + " is served by another principal");
        }
        Optional<ServingRecords.Stored<ManagerSpec>> spec = w.records().managerSpec(instanceId);
        if (spec.isPresent() && !(spec.get().value().owner().equals(owner) && spec.get().value().actor().equals(actor))) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                    + " is registered by another principal");
        }
    }

    private ServingGate open(String instanceId, String principal, long epoch, long registrationRevision) {
        return new ServingGate(ENDPOINT, instanceId, ServingGate.State.OPEN, principal, epoch, registrationRevision,
                w.clock().instant().toString(), 0);
    }

    @Override
    public ServingGate freezeGate(InstanceId instance) {
        String instanceId = instance.value();
        checkInstance(instanceId);
        w.refuseIfUnavailable().run();
        w.observeRegistration().run();
        for (int round = 0; round < 2; round++) {
            ServingGate gate = w.records().gate(ENDPOINT, instanceId).orElseThrow(() -> new CotalException(
                    ErrorCode.NOT_FOUND, "manager instance " + instanceId + " has no gate"));
            if (gate.state() == ServingGate.State.FROZEN) {
                return gate;
            }
            ServingGate frozen = new ServingGate(ENDPOINT, instanceId, ServingGate.State.FROZEN, gate.principal(),
                    gate.processEpoch(), gate.registrationRevision(), w.clock().instant().toString(), 0);
            Optional<Long> written = w.records().replaceGate(frozen, gate.revision());
            if (written.isPresent()) {
                return new ServingGate(ENDPOINT, instanceId, ServingGate.State.FROZEN, gate.principal(),
                        gate.processEpoch(), gate.registrationRevision(), frozen.updatedAt(), written.get());
            }
        }
        throw new CotalException(ErrorCode.CONFLICT, "the manager gate of " + instanceId + " moved twice while it was frozen");
    }

    @Override
    public Optional<ServingGate> gate(InstanceId instance) {
        String instanceId = instance.value();
        checkInstance(instanceId);
        w.refuseIfUnavailable().run();
        return w.records().gate(ENDPOINT, instanceId);
    }

    @Override
    public ManagerCluster registeredCluster(Owner ownerId, InstanceId instance, long registrationRevision) {
        String owner = ownerId.value();
        String instanceId = instance.value();
        checkOwner(owner);
        checkInstance(instanceId);
        if (!ServingDocuments.counter(registrationRevision)) {
            throw CotalException.badRequest("registrationRevision", "must be 1 to 2^53-1");
        }
        w.refuseIfUnavailable().run();
        return artifacts.registeredManagerCluster(owner, instanceId, registrationRevision);
    }

    @Override
    public Verdict verdict(Owner ownerId, InstanceId instance) {
        String owner = ownerId.value();
        String instanceId = instance.value();
        checkOwner(owner);
        checkInstance(instanceId);
        w.refuseIfUnavailable().run();
        return verdict(owner, instanceId, w.records().gate(ENDPOINT, instanceId));
    }

    /** The candidate rule of SPEC §14.4 over a gate already read. */
    Verdict verdict(String owner, String instanceId, Optional<ServingGate> read) {
        if (read.isEmpty()) {
            return Verdict.NO_GATE;
        }
        ServingGate gate = read.get();
        if (gate.state() != ServingGate.State.OPEN) {
            return Verdict.FROZEN;
        }
        Optional<ServingRecords.Stored<ManagerSpec>> spec = w.records().managerSpec(instanceId);
        if (spec.isEmpty()) {
            return Verdict.NO_SPEC;
        }
        if (!spec.get().value().owner().equals(owner)) {
            return Verdict.OTHER_OWNER;
        }
        if (!gate.principal().equals(spec.get().value().owner() + "." + spec.get().value().actor())) {
            return Verdict.OTHER_PRINCIPAL;
        }
        if (spec.get().revision() != gate.registrationRevision()) {
            return Verdict.STALE_REGISTRATION;
        }
        Optional<ManagerStatus> status = w.records().managerStatus(instanceId);
        if (status.isEmpty() || status.get().observedSpecRevision() < gate.registrationRevision()) {
            return Verdict.UNOBSERVED;
        }
        if (status.get().epoch() != gate.processEpoch()) {
            return Verdict.OTHER_EPOCH;
        }
        return Verdict.CANDIDATE;
    }

    @Override
    public InstanceId selectInstance(Owner ownerId, Optional<InstanceId> requestedId) {
        String owner = ownerId.value();
        Optional<String> requested = requestedId.map(InstanceId::value);
        checkOwner(owner);
        requested.ifPresent(ManagerGates::checkInstance);
        w.refuseIfUnavailable().run();
        if (requested.isPresent()) {
            authorize(owner, requested.get());
            return requestedId.get();
        }
        List<String> candidates = new ArrayList<>();
        for (Map.Entry<String, byte[]> row : w.scan().apply(GATE_PREFIX).entrySet()) {
            String instanceId = row.getKey().substring(GATE_PREFIX.length());
            if (!InstanceId.matches(instanceId)) {
                throw ServingDocuments.corrupt(row.getKey(), "not a manager gate key");
            }
            ServingGate gate = ServingDocuments.parseGate(ENDPOINT, instanceId, row.getValue(), 0);
            if (gate.principal().startsWith(owner + ".")
                    && verdict(owner, instanceId, Optional.of(gate)) == Verdict.CANDIDATE) {
                candidates.add(instanceId);
            }
        }
        if (candidates.isEmpty()) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager-caller: " + owner
                    + " has no candidate manager instance");
        }
        if (candidates.size() > 1) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "manager-caller: " + owner + " has "
                    + candidates.size() + " candidate manager instances; name one");
        }
        return new InstanceId(candidates.get(0));
    }

    @Override
    public void authorizeCaller(Owner ownerId, InstanceId instance) {
        String owner = ownerId.value();
        String instanceId = instance.value();
        checkOwner(owner);
        checkInstance(instanceId);
        w.refuseIfUnavailable().run();
        authorize(owner, instanceId);
    }

    private void authorize(String owner, String instanceId) {
        Verdict verdict = verdict(owner, instanceId, w.records().gate(ENDPOINT, instanceId));
        if (verdict != Verdict.CANDIDATE) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager-caller: manager instance " + instanceId
                    + " of " + owner + " is not a candidate (" + verdict.wire() + ")");
        }
    }

    void requireGranted(String owner, String actor) {
        if (w.ledger().find(Principal.of(owner, actor)).isEmpty()) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "actor " + owner + "." + actor + " is not granted");
        }
    }

    static void checkOwner(String owner) {
        Owner.of(owner, "owner");
    }

    static void checkPrincipal(String owner, String actor) {
        Principal.of(owner, actor);
    }

    static void checkInstance(String instanceId) {
        InstanceId.of(instanceId, "instanceId");
    }
}
