package ai.cotal.auth.internal.metrics;

import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link AuthMetrics} on an embedder's {@link MeterSink}: the meters of SPEC §13.21, each tagged
 * with closed values only (and {@code space} under the per-space opt-in). Counters and timers are
 * asked of the sink once per tag combination and kept; gauges are shared per sink
 * ({@link SharedGauges}) so several planes, callouts and faces combine. A failure to record is
 * swallowed: measuring never fails what it measures. Thread-safe.
 */
final class SinkMetrics implements AuthMetrics {
    private static final String[] STORES = {"auth", "issued", "accepted"};

    private final MeterSink sink;
    private final Map<String, String> common;
    private final Map<String, MeterSink.Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, MeterSink.Timer> timers = new ConcurrentHashMap<>();

    /** The recorder on {@code sink}; {@code space} null: no space tag. */
    SinkMetrics(MeterSink sink, String space) {
        this.sink = sink;
        this.common = space == null ? Map.of() : Map.of("space", space);
    }

    /** The common tags and {@code pairs} (key, value, key, value, ...), in key order. */
    private static Map<String, String> tags(Map<String, String> base, String... pairs) {
        Map<String, String> tags = new TreeMap<>(base);
        for (int i = 0; i < pairs.length; i += 2) {
            tags.put(pairs[i], pairs[i + 1]);
        }
        return tags;
    }

    private void count(String name, String... tags) {
        try {
            counters.computeIfAbsent(name + '|' + String.join("|", tags), k -> sink.counter(name, tags(common, tags)))
                    .increment();
        } catch (RuntimeException e) {
            // a sink that refuses (closed, filtered to a no-op) never fails the path it measures
        }
    }

    private void time(String name, long nanos, String... tags) {
        try {
            timers.computeIfAbsent(name + '|' + String.join("|", tags), k -> sink.timer(name, tags(common, tags)))
                    .record(nanos);
        } catch (RuntimeException e) {
            // as count()
        }
    }

    @Override
    public void calloutDecision(CalloutOutcome outcome, CalloutReason reason, ErrorCode code, long nanos) {
        String o = AuthMetrics.tag(outcome);
        count("cotal.auth.callout.decisions", "outcome", o, "reason", AuthMetrics.tag(reason), "code",
                code == null ? "none" : code.wire());
        time("cotal.auth.callout.latency", nanos, "outcome", o);
    }

    @Override
    public void httpAnswer(Face face, String route, int status, long nanos) {
        String f = AuthMetrics.tag(face);
        count("cotal.auth.http.requests", "face", f, "route", route, "status", statusTag(status));
        if (route.equals("exchange")) {
            time("cotal.auth.exchange.latency", nanos, "face", f, "outcome", status == 200 ? "issued"
                    : status < 500 ? "refused" : "failed");
        }
    }

    private static String statusTag(int status) {
        return switch (status) {
            case 200, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503 -> Integer.toString(status);
            default -> "other";
        };
    }

    @Override
    public void throttled(Face face, ThrottleWindow window) {
        count("cotal.auth.http.throttled", "face", AuthMetrics.tag(face), "window", AuthMetrics.tag(window));
    }

    @Override
    public void budgetRefused(String kind, BudgetLimit limit) {
        count("cotal.auth.budget.refusals", "kind", kind, "limit", AuthMetrics.tag(limit));
    }

    @Override
    public void invocation(String operation, String status) {
        count("cotal.auth.endpoint.invocations", "operation", operation, "status", status);
    }

    @Override
    public void policyGrant(String action) {
        count("cotal.auth.policy.grants", "action", action);
    }

    @Override
    public void turnover(String roleLabel) {
        count("cotal.auth.plane.turnovers", "role", roleLabel);
    }

    @Override
    public Registration planeGauges(Supplier<PlaneHealth> health) {
        SharedGauges shared = SharedGauges.of(sink);
        List<Registration> taken = new ArrayList<>();
        for (PlaneHealth.State state : List.of(PlaneHealth.State.OPEN, PlaneHealth.State.FENCED, PlaneHealth.State.CLOSING)) {
            taken.add(shared.sum("cotal.auth.plane.state", tags(common, "state", state.label()), null,
                    () -> health.get().state() == state ? 1 : 0));
        }
        for (PlaneConnection.Status status : PlaneConnection.Status.values()) {
            String label = status.name().toLowerCase(Locale.ROOT);
            taken.add(shared.sum("cotal.auth.plane.connections", tags(common, "status", label), null,
                    () -> health.get().connections().stream().filter(c -> c.status() == status).count()));
        }
        for (String store : STORES) {
            Supplier<PlaneHealth.StoreFill> fill = () -> health.get().stores().stream()
                    .filter(s -> s.store().equals(store)).findFirst().orElse(null);
            Map<String, String> tags = tags(common, "store", store);
            taken.add(shared.fullest("cotal.auth.store.used", tags, "bytes", fill, PlaneHealth.StoreFill::bytes));
            taken.add(shared.fullest("cotal.auth.store.limit", tags, "bytes", fill, PlaneHealth.StoreFill::maxBytes));
            taken.add(shared.fullest("cotal.auth.store.fill", tags, null, fill, PlaneHealth.StoreFill::fill));
        }
        return () -> taken.forEach(Registration::close);
    }

    @Override
    public Registration calloutGauges(BooleanSupplier answering) {
        return SharedGauges.of(sink).sum("cotal.auth.callout.answering", tags(common), null,
                () -> answering.getAsBoolean() ? 1 : 0);
    }

    @Override
    public Registration faceGauges(Face face, IntSupplier open, IntSupplier inFlight, LongSupplier peerCapCuts,
            LongSupplier deadlineCuts) {
        SharedGauges shared = SharedGauges.of(sink);
        Map<String, String> tags = tags(common, "face", AuthMetrics.tag(face));
        List<Registration> taken = List.of(
                shared.sum("cotal.auth.http.connections", tags, null, open::getAsInt),
                shared.sum("cotal.auth.http.in.flight", tags, null, inFlight::getAsInt),
                shared.counter("cotal.auth.http.connections.cut", tags(tags, "cause", "peer-cap"), peerCapCuts::getAsLong),
                shared.counter("cotal.auth.http.connections.cut", tags(tags, "cause", "read-deadline"),
                        deadlineCuts::getAsLong));
        return () -> taken.forEach(Registration::close);
    }
}
