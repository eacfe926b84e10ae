package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Completion;
import ai.cotal.servicehost.HostResult.DenyNew;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import java.util.List;

/** A builder for {@link HostResult}s (the record has every optional field). Single-use. */
final class Answers {
    private final Status status;
    private String operationId;
    private Completion completion;
    private List<String> debt;
    private DenyNew denyNew;
    private Long gateRevision;
    private String reason;
    private Views.Instance instance;
    private List<Views.Instance> instances;
    private String cursor;
    private Views.Proposal proposal;
    private Views.Operation operation;
    private Views.Name name;
    private Views.Grant grant;
    private List<Views.Grant> grants;

    private Answers(Status status) {
        this.status = status;
    }

    static Answers of(Status status) {
        return new Answers(status);
    }

    static HostResult denied(String reason) {
        return of(Status.DENIED).reason(reason).build();
    }

    static HostResult held(String operationId, String reason) {
        return of(Status.HELD).operation(operationId).reason(reason).build();
    }

    static Answers completed(String operationId, boolean applied) {
        return of(Status.COMPLETED).operation(operationId).completion(applied ? Completion.APPLIED : Completion.STORED);
    }

    Answers operation(String id) {
        this.operationId = id;
        return this;
    }

    Answers completion(Completion c) {
        this.completion = c;
        return this;
    }

    Answers debt(List<String> owed) {
        this.debt = owed == null || owed.isEmpty() ? null : owed;
        return this;
    }

    Answers denyNew(DenyNew evidence) {
        this.denyNew = evidence;
        return this;
    }

    Answers gateRevision(Long revision) {
        this.gateRevision = revision;
        return this;
    }

    Answers reason(String why) {
        this.reason = why;
        return this;
    }

    Answers instance(Views.Instance view) {
        this.instance = view;
        return this;
    }

    Answers instances(List<Views.Instance> views, String next) {
        this.instances = views;
        this.cursor = next;
        return this;
    }

    Answers proposal(Views.Proposal view) {
        this.proposal = view;
        return this;
    }

    Answers operationView(Views.Operation view) {
        this.operation = view;
        return this;
    }

    Answers name(Views.Name view) {
        this.name = view;
        return this;
    }

    Answers grant(Views.Grant view) {
        this.grant = view;
        return this;
    }

    Answers grants(List<Views.Grant> views, String next) {
        this.grants = views;
        this.cursor = next;
        return this;
    }

    HostResult build() {
        return new HostResult(status, null, operationId, completion, debt, denyNew, gateRevision, reason, instance, instances,
                cursor, proposal, operation, name, grant, grants, null);
    }
}
