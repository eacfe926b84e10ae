package ai.cotal.auth.internal.plane;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.internal.callout.CalloutOptions;
import java.util.Locale;

/**
 * The plane's own auth-callout responder ({@link AuthPlaneOptions.Builder#callout}): it answers
 * with the plane's authority and signer, on the plane's servers, TLS context, clock and meter
 * sink. The plane starts it last in its open and closes it first.
 */
final class PlaneResponder {
    private PlaneResponder() {
    }

    /** Starts the responder of {@code options}' callout account; the caller closes it. */
    static AuthCallout start(AuthPlaneOptions options, CalloutAuthority authority) {
        CalloutOptions.Builder responder = CalloutOptions.builder().servers(options.servers())
                .callout(options.callout().orElseThrow()).plane(authority).signer(options.signer())
                .clock(options.clock());
        options.sslContext().ifPresent(responder::sslContext);
        options.settings().meterSink().ifPresent(sink -> responder.meterSink(sink)
                .meterSpaceTag(options.settings().meterSpaceTag()));
        return AuthCallout.start(responder.build());
    }

    /** What {@link PlaneHealth#callout()} shows of {@code responder}. */
    static PlaneHealth.Callout health(AuthCallout responder) {
        String status = responder.connection().getStatus().name().toLowerCase(Locale.ROOT);
        return new PlaneHealth.Callout(responder.answering(), status.equals("connecting") ? "reconnecting" : status);
    }
}
