package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the broker finds account claims. {@link Memory}: only the preloads, changed by re-render
 * and reload. {@link Full}: a directory the broker keeps pushed claims in (one file per account),
 * seeded by the preloads; claims can be pushed at run time. nats-server picks the resolver kind
 * only at start.
 */
public sealed interface AccountResolver {
    /** The memory resolver: the broker knows the preloaded claims only. */
    record Memory() implements AccountResolver {
    }

    /**
     * @param directory where the broker stores claims
     * @param limit     the most accounts the directory holds (new claims are refused past it)
     * @param interval  how often the broker syncs the directory with other servers
     */
    record Full(Path directory, int limit, Duration interval) implements AccountResolver {
        public Full {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(interval, "interval");
            if (directory.toString().isBlank()) {
                throw CotalException.badRequest("resolver.directory", "must not be blank");
            }
            if (limit <= 0) {
                throw CotalException.badRequest("resolver.limit", "must be positive");
            }
            if (interval.toSeconds() < 1) {
                throw CotalException.badRequest("resolver.interval", "must be at least one second");
            }
        }
    }

    static AccountResolver memory() {
        return new Memory();
    }

    static AccountResolver full(Path directory, int limit, Duration interval) {
        return new Full(directory, limit, interval);
    }
}
