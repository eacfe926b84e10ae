package ai.cotal.auth.internal.metrics;

import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where the plane, the callout and the HTTP faces report what they did (SPEC §13.21). Every method
 * has an empty default: {@link #NONE} records nothing; {@link #of} makes the recorder that names
 * the meters and reports them to the embedder's {@link MeterSink} when one was given. Nothing here
 * names a metrics library. Every tag value passed in is one of the closed enums below or a fixed word (a request
 * kind, a result status, an error code): never an id, a token, a nonce or a path. Implementations
 * are thread-safe and never throw into the path they measure.
 */
public interface AuthMetrics {
    /** Records nothing. */
    AuthMetrics NONE = new AuthMetrics() {
    };

    /** How a callout request ended. */
    enum CalloutOutcome { ADMITTED, REFUSED, DROPPED }

    /** Why (SPEC §13.21): the step that dropped or refused it, or {@code ADMITTED}. */
    enum CalloutReason {
        ADMITTED, UNSEALED, UNVERIFIED, FOREIGN_SERVER, OVERFLOW, NO_BEARER, BEARER, CONNECT, NONCE, ENDPOINT, SESSION,
        PERMISSIONS, REGISTER, INTERNAL
    }

    /** An HTTP face: the token exchange's two, and a metrics scrape's (which records nothing). */
    enum Face { LOOPBACK, PUBLIC, METRICS }

    /** The refusal window a throttled POST met (SPEC §13.17). */
    enum ThrottleWindow { REFUSALS, CAPABILITY }

    /** The limit a budgeted write met (SPEC §13.20). */
    enum BudgetLimit { PRINCIPAL, SPACE, STORE_PRESSURE }

    /** A closed tag value's wire form: lower case, {@code _} as {@code -}. */
    static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Stops what {@link #planeGauges} and its siblings registered. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** One callout request: its outcome, reason, the refusal's code (null unless refused) and its time. */
    default void calloutDecision(CalloutOutcome outcome, CalloutReason reason, ErrorCode code, long nanos) {
    }

    /** One answer a face sent for {@code route} (a closed route name), with its time since dispatch. */
    default void httpAnswer(Face face, String route, int status, long nanos) {
    }

    /** A POST refused 429 by a full window, before any check. */
    default void throttled(Face face, ThrottleWindow window) {
    }

    /** A budgeted write of {@code kind} ({@code mint}, {@code issuance}, {@code endpoint}) refused at {@code limit}. */
    default void budgetRefused(String kind, BudgetLimit limit) {
    }

    /** One call of the service-endpoint host: its request kind and its status (or the code it threw). */
    default void invocation(String operation, String status) {
    }

    /** An automatic write of the grant policy: {@code action} is {@code granted}, {@code regranted} or {@code revoked}. */
    default void policyGrant(String action) {
    }

    /** A standing connection of {@code roleLabel} reconnected. */
    default void turnover(String roleLabel) {
    }

    /** The plane's gauges (state, connections, store fills) read from {@code health}, until closed. */
    default Registration planeGauges(Supplier<PlaneHealth> health) {
        return () -> { };
    }

    /** A callout responder's gauge, until closed. */
    default Registration calloutGauges(BooleanSupplier answering) {
        return () -> { };
    }

    /** A face's gauges and cut counts, until closed. */
    default Registration faceGauges(Face face, IntSupplier open, IntSupplier inFlight, LongSupplier peerCapCuts,
            LongSupplier deadlineCuts) {
        return () -> { };
    }

    /**
     * The recorder for an option's {@code sink} (null for {@link #NONE}); {@code spaceTag} adds
     * {@code space} = {@code space} to every meter. Refuses {@code spaceTag} without a sink
     * ({@code bad-request} naming {@code meterSpaceTag}).
     */
    static AuthMetrics of(MeterSink sink, boolean spaceTag, String space) {
        check(sink, spaceTag);
        return sink == null ? NONE : new SinkMetrics(sink, spaceTag ? space : null);
    }

    /** The recorder of a plane's (or service's) settings. */
    static AuthMetrics of(ai.cotal.auth.PlaneSettings settings) {
        return of(settings.meterSink().orElse(null), settings.meterSpaceTag(), settings.space());
    }

    /** The options' rule: the space tag needs a sink. */
    static void check(MeterSink sink, boolean spaceTag) {
        if (spaceTag && sink == null) {
            throw new CotalException(ErrorCode.BAD_REQUEST, "meterSpaceTag: needs a meterSink (the per-space tag"
                    + " is added to the meters of that sink)");
        }
    }
}
