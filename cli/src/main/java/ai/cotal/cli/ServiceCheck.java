package ai.cotal.cli;

import ai.cotal.auth.exchange.HealthProof;
import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostJson;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether a face answers as the auth service of a space, asked before anything secret is sent to
 * it: {@code GET /health} must answer 200 {@code {ok: true, issuer: "urn:cotal:auth:<space>"}}
 * within 5 s and, when the caller holds the capability of {@code auth-service.json}, a
 * {@link HealthProof} of it for a fresh challenge. A stale file can name a port another process
 * now holds; that process must receive neither the capability nor an IdP token (SPEC §13.17).
 */
final class ServiceCheck {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The loopback health says why (SPEC §13.21): connections and stores, well under this. */
    private static final int MAX_BODY = 16 * 1024;

    private ServiceCheck() {
    }

    /**
     * Why {@code base} is not the auth service of {@code space}, or null when it is; with a
     * {@code capability} (the loopback face's) the face must also prove it holds it.
     */
    static String refusal(HttpClient http, URI base, String space, String capability) {
        String challenge = HealthProof.newChallenge();
        String expected = "urn:cotal:auth:" + space;
        String where = "the service at " + base.getScheme() + "://" + base.getAuthority();
        try {
            HttpRequest.Builder ask = HttpRequest.newBuilder(base.resolve("/health")).timeout(TIMEOUT).GET();
            if (capability != null) {
                ask.header(HealthProof.CHALLENGE_HEADER, challenge);
            }
            // the whole answer within the deadline and at most MAX_BODY bytes: the face may be anyone's
            HttpResponse<byte[]> health = http.sendAsync(ask.build(), info -> new LimitedBody(MAX_BODY))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (health.statusCode() != 200) {
                return where + " does not answer as an auth service (health answered " + health.statusCode() + ")";
            }
            JsonNode body = HostJson.tree(health.body(), "health");
            if (!expected.equals(body.path("issuer").asText(null))) {
                return where + " is not the auth service of space \"" + space + "\"";
            }
            if (!body.path("ok").asBoolean(false)) {
                String state = body.path("plane").path("state").asText("");
                state = state.matches("[a-z]{1,16}") ? state : "unknown"; // the face may be anyone's
                return where + " is the auth service of space \"" + space + "\" but is not serving (plane " + state
                        + (body.path("callout").path("answering").asBoolean(true) ? "" : ", callout not answering") + ")";
            }
            if (capability != null && !HealthProof.verifies(capability, challenge, body.path("proof").asText(null))) {
                return where + " does not hold the capability of auth-service.json (a stale file, or another process"
                        + " on its port)";
            }
            return null;
        } catch (ContractException e) {
            return where + " does not answer as an auth service (its health is not JSON)";
        } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
            return where + " does not answer as an auth service (" + (e instanceof ExecutionException
                    ? e.getCause().getClass().getSimpleName() : e.getClass().getSimpleName()) + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while checking " + where;
        }
    }

    /** A response body of at most {@code max} bytes; a longer one fails and is not read further. */
    private static final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int max;
        private Flow.Subscription subscription;

        LimitedBody(int max) {
            this.max = max;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer item : items) {
                if (bytes.size() + item.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new IOException("a health answer over " + max + " bytes"));
                    return;
                }
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable failure) {
            result.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }
    }
}
