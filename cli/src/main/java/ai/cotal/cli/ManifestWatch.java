package ai.cotal.cli;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Re-applies a host's manifest when its content changes ({@code serve --spaces} and
 * {@code callout-host --spaces}): every 2 s, until {@code stop}, the manifest's bytes are compared
 * with the last applied copy ({@code <manifest>.applied}) and, when they differ, applied. A malformed
 * manifest ({@code bad-request}) is reported and waits for the next edit; any other failure is
 * reported and retried on the next tick.
 */
final class ManifestWatch {
    private static final long TICK_SECONDS = 2;

    private ManifestWatch() {
    }

    /**
     * Watches until {@code stop} completes: {@code apply} applies the manifest (and says so), the
     * host writes {@code appliedFile} when it did; {@code command} prefixes the reports on {@code err}.
     */
    static void run(Runnable apply, Path appliedFile, Path manifest, String command, PrintStream err,
            CompletableFuture<Void> stop) {
        byte[] applied = read(appliedFile);
        byte[] refused = null;
        while (true) {
            try {
                stop.get(TICK_SECONDS, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                byte[] now = read(manifest);
                if (now != null && !Arrays.equals(now, applied) && !Arrays.equals(now, refused)) {
                    try {
                        apply.run();
                        applied = now;
                        refused = null;
                    } catch (CotalException failed) {
                        err.println(command + ": manifest not applied: " + failed.getMessage());
                        // a malformed manifest waits for the next edit; a lane that did not start is retried
                        refused = failed.code() == ErrorCode.BAD_REQUEST ? now : null;
                    } catch (RuntimeException failed) {
                        err.println(command + ": manifest not applied: " + failed.getMessage());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                return;
            }
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
    }
}
