package ai.cotal.auth.internal.run;

import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.SourceLiveness;

/**
 * An issuer window (SPEC §14.7): a short-lived issuer session, opened only for a served run
 * attempt and closed with it. {@code issued} resolves the caller's issuance and writes the
 * attempt's over the window's own connection; {@code sources} is the plane's composed source check on that connection
 * ({@code composedSourceIsLive}). Closing it closes the connection.
 */
public record IssuerWindow(IssuedAuthority issued, SourceLiveness sources, Runnable closer) implements AutoCloseable {
    @Override
    public void close() {
        closer.run();
    }
}
