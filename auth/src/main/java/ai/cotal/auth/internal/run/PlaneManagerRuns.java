package ai.cotal.auth.internal.run;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.ServingGate;
import ai.cotal.auth.internal.run.RunDocuments.AdmissionRow;
import ai.cotal.auth.internal.run.RunDocuments.AttemptRow;
import ai.cotal.auth.internal.run.RunDocuments.CheckpointRow;
import ai.cotal.auth.internal.run.RunDocuments.Observed;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.core.issued.KvSourceLiveness;
import ai.cotal.core.issued.Source;
import ai.cotal.core.issued.SourceLiveness;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The plane's {@link ManagerRuns} (SPEC §14.7): admissions and attempts written create-only on the
 * writer's admission store, a manager's run status and checkpoints read from the records store's
 * leader, served attempts bound to the plane's own observation ({@link ObservedRunRequests}).
 * Thread-safe.
 */
public final class PlaneManagerRuns implements ManagerRuns {
    /** How long a driver credential lives. */
    static final Duration ATTEMPT_TTL = Duration.ofMinutes(15);
    private static final String SUPERVISE = "supervise";

    /**
     * What the plane hands the runs: {@code admissions} on the writer (admission store),
     * {@code records} on the reader (records store), {@code sources} the plane's composed check,
     * {@code windows} opens an issuer window (a served attempt's only).
     */
    public record Wiring(String space, SpaceSigner signer, RowStore admissions, RowStore records,
            ManagerAuthority managers, ActorLedger ledger, SourceLiveness sources, ObservedRunRequests observed,
            Supplier<IssuerWindow> windows, Clock clock, Runnable refuseIfUnavailable) {
    }

    private final Wiring w;
    private final String actorsBucket;
    private final String admissionBucket;
    private final String prefix;
    final RunRequestChecks checks;
    private final OperatorRunAttempts operators;

    public PlaneManagerRuns(Wiring wiring) {
        this.w = wiring;
        this.actorsBucket = KvSourceLiveness.ACTOR_LEDGER_BUCKET_PREFIX + SpaceName.token(wiring.space());
        this.admissionBucket = StoreNames.bucket("admission", wiring.space());
        this.prefix = new SpaceName(wiring.space()).subjectPrefix();
        this.checks = new RunRequestChecks(prefix);
        this.operators = new OperatorRunAttempts(this, wiring.managers(), wiring.refuseIfUnavailable());
    }

    @Override
    public Admission admit(Holder holder, AdmissionRequest request) {
        RunRequestChecks.holder(holder);
        RunRequestChecks.admission(request);
        w.refuseIfUnavailable().run();
        ServingGate gate = authorizeHolder(holder, "manager run admission");
        requireLiveManaged(holder.owner().value(), request.actor().value(), request.lifecycleUid().value(), true);
        registeredCommand(holder, gate, "run-start");
        AdmissionRow row = new AdmissionRow(1, request.runId().value(), holder.owner().value(), holder.instanceId().value(), request.actor().value(),
                request.lifecycleUid().value(), w.clock().instant().toString());
        String key = RunDocuments.admissionKey(request.runId().value());
        for (int round = 0; round < 2; round++) {
            if (w.admissions().create(key, RunDocuments.write(row)).isPresent()) {
                return admission(row, false);
            }
            Optional<RowStore.Row> stored = w.admissions().last(key);
            if (stored.isPresent()) {
                AdmissionRow existing = RunDocuments.admission(request.runId().value(), stored.get().data());
                if (!existing.sameTerms(row)) {
                    throw new CotalException(ErrorCode.ALREADY_EXISTS, "run " + request.runId().value()
                            + " is admitted with other terms");
                }
                return admission(existing, true);
            }
        }
        throw new CotalException(ErrorCode.CONFLICT, "the admission of run " + request.runId().value() + " moved while it was written");
    }

    private static Admission admission(AdmissionRow row, boolean replayed) {
        return new Admission(new RunId(row.runId()), new Owner(row.owner()), new InstanceId(row.instanceId()),
                new Actor(row.actor()), new LifecycleUid(row.lifecycleUid()), row.admittedAt(), replayed);
    }

    @Override
    public Attempt issueAttempt(Holder holder, AttemptRequest request) {
        RunRequestChecks.holder(holder);
        checks.attempt(request, false);
        w.refuseIfUnavailable().run();
        ServingGate gate = authorizeHolder(holder, "manager run attempt");
        return attempt(holder, gate, request, null);
    }

    @Override
    public Attempt issueOperatorAttempt(Granter.Operator operator, Owner owner, InstanceId instanceId, AttemptRequest request) {
        return operators.issue(operator, owner, instanceId, request);
    }

    /**
     * Steps 2 to 8 of an attempt for {@code holder}'s instance, whose {@code gate} passed the
     * holder's checks; {@code operator} the audit id of an operator's attempt, null for a manager's.
     */
    Attempt attempt(Holder holder, ServingGate gate, AttemptRequest request, String operator) {
        String runId = request.runId().value();
        Optional<RowStore.Row> stored = w.admissions().last(RunDocuments.attemptKey(runId, request.attemptId().value()));
        Optional<ObservedRunRequests.Seen> seen = request.served().isPresent() && stored.isEmpty()
                ? Optional.of(requireObserved(holder, request)) : Optional.empty(); // a stored attempt replays at step 8
        AdmissionRow admission = w.admissions().last(RunDocuments.admissionKey(runId))
                .map(r -> RunDocuments.admission(runId, r.data()))
                .orElseThrow(() -> new CotalException(ErrorCode.FAILED_PRECONDITION, "run " + runId + " has no admission"));
        if (!admission.instanceId().equals(holder.instanceId().value()) || !admission.owner().equals(holder.owner().value())) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "run " + runId
                    + " was admitted on another manager instance");
        }
        String statusKey = RunRecords.statusKey(holder.instanceId().value(), runId);
        Optional<String> state = w.records().last(statusKey).map(r -> RunDocuments.status(statusKey, runId, r.data()).state());
        if (state.isPresent() && (state.get().equals("completed") || state.get().equals("failed"))) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "run " + runId + " is " + state.get());
        }
        requireLiveManaged(admission.owner(), admission.actor(), admission.lifecycleUid(), false);
        registeredCommand(holder, gate, request.kind().command());
        if (request.kind() != Kind.START) {
            requireCheckpoint(holder.instanceId().value(), runId, request.checkpoint().orElseThrow(), request.kind());
        }
        return issue(admission, request, stored, seen, operator);
    }

    /**
     * Step 2 of SPEC §14.7: the observation of the served subject (looked at, not taken: the
     * window takes it), and exactly what it asked.
     */
    private ObservedRunRequests.Seen requireObserved(Holder holder, AttemptRequest request) {
        String subject = request.served().orElseThrow();
        ObservedRunRequests.Seen observation = w.observed().peek(subject).orElseThrow(() -> notObserved(subject));
        Observed seen = observation.request();
        String field = !seen.owner().equals(holder.owner().value()) ? "owner"
                : seen.op() != request.kind() ? "kind"
                : !seen.runId().equals(request.runId().value()) ? "runId"
                : !seen.checkpoint().equals(request.checkpoint()) ? "checkpoint"
                : !seen.answerId().equals(request.answerId()) ? "answerId" : null;
        if (field != null) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request ("
                    + field + ")");
        }
        return observation;
    }

    private static CotalException notObserved(String subject) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "the plane observed no caller publish of " + subject
                + " it has not issued for");
    }

    private void requireCheckpoint(String instanceId, String runId, String token, Kind kind) {
        String key = RunRecords.checkpointKey(instanceId, token);
        Optional<CheckpointRow> checkpoint = w.records().last(key).map(r -> RunDocuments.checkpoint(key, token, r.data()))
                .filter(c -> c.runId().equals(runId));
        if (kind == Kind.ANSWER && checkpoint.isPresent() && checkpoint.get().settled()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "checkpoint " + token + " of run " + runId
                    + " is settled");
        }
        if (checkpoint.isEmpty() || !checkpoint.get().waiting()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "checkpoint " + token + " of run " + runId
                    + " is not waiting");
        }
    }

    /**
     * Step 8: the attempt row, create-only, with its driver credential; a replay answers the
     * stored one. A served attempt's credential is first recorded as an issuance inside an issuer
     * window ({@link #issueServed}).
     */
    private Attempt issue(AdmissionRow admission, AttemptRequest request, Optional<RowStore.Row> stored,
            Optional<ObservedRunRequests.Seen> seen, String operator) {
        String key = RunDocuments.attemptKey(request.runId().value(), request.attemptId().value());
        if (stored.isEmpty()) {
            Instant now = w.clock().instant();
            Instant exp = now.plus(ATTEMPT_TTL);
            String jwt = driverJwt(admission, request.driver(), now, exp);
            if (request.served().isPresent()) {
                Optional<Attempt> issued = issueServed(admission, request, seen.orElseThrow(() ->
                        notObserved(request.served().get())), key, now, exp, jwt, operator);
                if (issued.isPresent()) {
                    return issued.get();
                }
            } else if (w.admissions().create(key, RunDocuments.write(row(request, now, exp, jwt, null, operator)))
                    .isPresent()) {
                return attempt(row(request, now, exp, jwt, null, operator), false);
            }
            stored = w.admissions().last(key);
        }
        AttemptRow existing = RunDocuments.attempt(request.runId().value(), request.attemptId().value(), stored.orElseThrow(() ->
                new CotalException(ErrorCode.CONFLICT, "the attempt " + request.attemptId().value() + " moved while it was written"))
                .data());
        if (!existing.sameTerms(row(request, null, null, null, null, operator))) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, "attempt " + request.attemptId().value() + " of run "
                    + request.runId().value() + " was issued with other terms");
        }
        return attempt(existing, true);
    }

    /**
     * A served attempt (SPEC §14.7, the issuer window): opens a window, resolves the caller's
     * issuance through it ({@link #requireLiveCaller}), checks the new issuance's sources (the
     * run's managed actor at its lifecycle, the run's admission row) through the composed check on
     * it, takes the observation, stages and releases the issuance of the driver credential's
     * permissions under the driver's accepted token, then creates the attempt row naming it; the
     * window closes. A failure after the take puts the observation back. Empty when another row
     * landed first (this issuance, which then backs no credential, is revoked).
     */
    private Optional<Attempt> issueServed(AdmissionRow admission, AttemptRequest request, ObservedRunRequests.Seen seen,
            String key, Instant now, Instant exp, String jwt, String operator) {
        List<Source> sources = List.of(new Source(w.space(), actorsBucket, "actor." + admission.owner() + "."
                + admission.actor() + "." + admission.lifecycleUid()), new Source(w.space(), admissionBucket,
                RunDocuments.admissionKey(admission.runId())));
        IssuedRef ref = new IssuedRef(w.space(), admission.owner(), admission.actor(), admission.lifecycleUid(),
                IssuedAuthority.newGeneration());
        Ceiling ceiling = new Ceiling(Ceiling.Side.patterns(List.of(driverPublish(admission)), List.of()),
                Ceiling.Side.patterns(List.of(driverInbox(request.driver())), List.of()));
        try (IssuerWindow window = w.windows().get()) {
            requireLiveCaller(window, seen);
            for (Source source : sources) {
                if (!window.sources().isLive(source)) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the issuance source " + source.bucket() + " "
                            + source.key() + " of run " + admission.runId() + " is not live");
                }
            }
            if (!w.observed().take(seen)) {
                throw notObserved(seen.subject()); // another forward took it first
            }
            try {
                window.issued().release(window.issued().stage(ref, sources, ceiling, Optional.of(exp.getEpochSecond())),
                        IssuedAuthority.acceptedToken(request.driver()));
                String issued = ref.owner() + "." + ref.actor() + "." + ref.uid() + "." + ref.generation();
                AttemptRow row = row(request, now, exp, jwt, issued, operator);
                if (w.admissions().create(key, RunDocuments.write(row)).isPresent()) {
                    return Optional.of(attempt(row, false));
                }
                window.issued().revoke(ref);
                return Optional.empty();
            } catch (RuntimeException e) {
                w.observed().restore(seen); // nothing was answered: the forward can be made again
                throw e;
            }
        }
    }

    /**
     * The window's first step: the caller's issuance, named by the accepted token the served
     * subject ends in, resolves live through the window (active, its actor-ledger source live at
     * its lifecycle), is the subject owner's, and its ceiling grants this op's served requests
     * ({@link AuthorityGrants#runCallerGrant}); else {@code permission-denied}.
     */
    private void requireLiveCaller(IssuerWindow window, ObservedRunRequests.Seen seen) {
        Observed asked = seen.request();
        IssuedAuthority.Resolved caller;
        try {
            caller = window.issued().resolve(asked.caller());
        } catch (CotalException e) {
            if (e.code() != ErrorCode.NOT_FOUND && e.code() != ErrorCode.PERMISSION_DENIED) {
                throw e;
            }
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the caller of " + seen.subject()
                    + " holds no live issuance: " + e.getMessage());
        }
        if (!caller.ref().owner().equals(asked.owner()) || !caller.permissions().publish().patterns()
                .contains(AuthorityGrants.runCallerGrant(prefix, asked.owner(), asked.op().wire(), asked.caller()))) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "the caller of " + seen.subject()
                    + " was not issued " + asked.op().command() + " requests of its owner's manager");
        }
    }

    private static AttemptRow row(AttemptRequest r, Instant now, Instant exp, String jwt, String issued,
            String operator) {
        return new AttemptRow(1, r.runId().value(), r.attemptId().value(), r.kind().wire(), r.driver(), r.checkpoint().orElse(null),
                r.answerId().orElse(null), r.served().orElse(null), now == null ? null : now.toString(),
                exp == null ? null : exp.toString(), jwt, issued, operator);
    }

    private static Attempt attempt(AttemptRow row, boolean replayed) {
        return new Attempt(new RunId(row.runId()), new RunId(row.attemptId()), Kind.of(row.kind()).orElseThrow(), row.jwt(), row.expiresAt(),
                replayed);
    }

    private String driverPublish(AdmissionRow admission) {
        return prefix + ".run." + admission.owner() + "." + admission.runId() + ".>";
    }

    private static String driverInbox(String driver) {
        return "_INBOX_" + driver + ".>";
    }

    private String driverJwt(AdmissionRow admission, String driver, Instant now, Instant exp) {
        UserClaim body = UserClaim.of(Permission.allow(List.of(driverPublish(admission))),
                Permission.allow(List.of(driverInbox(driver))), w.signer().accountPublicKey(),
                List.of("owner:" + admission.owner(), "actor:" + admission.actor(), "run:" + admission.runId()));
        ClaimSet<UserClaim> claims = ClaimSet.of(driver, "cotal:run-driver:" + admission.runId(), body, now)
                .withExp(exp.getEpochSecond());
        return NatsJwt.encode(claims, w.signer().signing());
    }

    /** Step 3 and 4 of the holder checks: {@code supervise}, a candidate instance, its gate's principal. */
    private ServingGate authorizeHolder(Holder holder, String what) {
        if (!holder.scope().contains(SUPERVISE)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, what
                    + " needs scope \"supervise\"; spawn/admin do not imply it");
        }
        w.managers().authorizeCaller(holder.owner(), holder.instanceId());
        ServingGate gate = w.managers().gate(holder.instanceId()).orElseThrow(() -> new CotalException(
                ErrorCode.PERMISSION_DENIED, "manager instance " + holder.instanceId().value() + " has no gate"));
        if (!gate.principal().equals(holder.owner().value() + "." + holder.actor().value())) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + holder.instanceId().value()
                    + " is served by another principal");
        }
        return gate;
    }

    /** {@code registeredCommand}: the registered cluster at the gate's registration revision declares it. */
    private void registeredCommand(Holder holder, ServingGate gate, String command) {
        if (!w.managers().registeredCluster(holder.owner(), holder.instanceId(), gate.registrationRevision()).commands()
                .contains(command)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the registered manager cluster declares no " + command);
        }
    }

    /** The composed source check (at admission) and {@code isLiveManagedActor}. */
    private void requireLiveManaged(String owner, String actor, String uid, boolean throughSources) {
        boolean live = (!throughSources || w.sources().isLive(new Source(w.space(), actorsBucket,
                "actor." + owner + "." + actor + "." + uid)))
                && w.ledger().find(Principal.of(owner, actor)).filter(row -> row.kind() == ActorRow.Kind.MANAGED)
                        .map(row -> row.lifecycleUid().value().equals(uid)).orElse(false);
        if (!live) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the managed actor " + owner + "." + actor
                    + " is not live at lifecycle " + uid);
        }
    }

    @Override
    public int observedCount() {
        w.refuseIfUnavailable().run();
        return w.observed().size();
    }
}
