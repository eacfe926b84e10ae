package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How clients reach the broker. Stated explicitly in every render: plaintext (loopback and
 * tests) or TLS required for every client ({@code allow_non_tls} is never rendered).
 */
public sealed interface Transport {
    /** No TLS block. */
    record Plaintext() implements Transport {
    }

    /** {@code tls { cert_file, key_file }}: every client must speak TLS. */
    record TlsRequired(Path certFile, Path keyFile) implements Transport {
        public TlsRequired {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
            if (certFile.toString().isBlank()) {
                throw CotalException.badRequest("transport.certFile", "must not be blank");
            }
            if (keyFile.toString().isBlank()) {
                throw CotalException.badRequest("transport.keyFile", "must not be blank");
            }
        }
    }

    static Transport plaintext() {
        return new Plaintext();
    }

    static Transport tlsRequired(Path certFile, Path keyFile) {
        return new TlsRequired(certFile, keyFile);
    }
}
