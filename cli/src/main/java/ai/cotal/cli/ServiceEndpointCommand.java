package ai.cotal.cli;

import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.ServiceEndpointHostClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code cotal-auth service-endpoint}: sends one host request as the signed-in user (an IdP token
 * in a file) through the stock service's route and prints the result as JSON. With
 * {@code --state DIR} it talks to the loopback face named in {@code DIR/auth-service.json} with
 * its capability (operator operations need that face); with {@code --url} to any face. Before it
 * sends the capability or the token it checks that the face answers as the auth service of
 * {@code --space} ({@link ServiceCheck}).
 */
final class ServiceEndpointCommand {
    private static final String USAGE = "usage: cotal-auth service-endpoint --space NAME (--state DIR | --url URL)"
            + " --token-file FILE REQUEST_JSON";

    private ServiceEndpointCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        String space = null;
        String state = null;
        String url = null;
        String tokenFile = null;
        String request = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            boolean flag = arg.startsWith("--");
            if (flag && i + 1 >= args.size()) {
                err.println(arg + " needs a value");
                err.println(USAGE);
                return 2;
            }
            switch (arg) {
                case "--space" -> space = args.get(++i);
                case "--state" -> state = args.get(++i);
                case "--url" -> url = args.get(++i);
                case "--token-file" -> tokenFile = args.get(++i);
                default -> {
                    if (flag || request != null) {
                        err.println("unknown argument " + arg);
                        err.println(USAGE);
                        return 2;
                    }
                    request = arg;
                }
            }
        }
        if (space == null || (state == null) == (url == null) || tokenFile == null || request == null) {
            err.println(USAGE);
            return 2;
        }
        HostRequest parsed;
        try {
            parsed = HostJson.parseRequest(request.getBytes(StandardCharsets.UTF_8));
        } catch (ContractException e) {
            err.println("cotal-auth service-endpoint: " + e.getMessage());
            return 2;
        }
        try {
            String capability = null;
            if (state != null) {
                Optional<LoopbackFace> face = LoopbackFace.read(Path.of(state));
                if (face.isEmpty()) {
                    err.println("cotal-auth service-endpoint: " + LoopbackFace.NOT_RUNNING);
                    return 1;
                }
                url = face.get().url().toString();
                capability = face.get().capability();
            }
            if (!safeTransport(URI.create(url))) {
                err.println("cotal-auth service-endpoint: --url must be https (http only on a loopback address): the"
                        + " IdP token would travel in the clear; nothing was sent");
                return 1;
            }
            HttpClient http = HttpClient.newHttpClient();
            String refusal = ServiceCheck.refusal(http, URI.create(url), space, capability);
            if (refusal != null) { // a stale file or a squatter on the port: send it no capability and no token
                err.println("cotal-auth service-endpoint: " + refusal + "; nothing was sent");
                return 1;
            }
            String token = Files.readString(Path.of(tokenFile), StandardCharsets.UTF_8).trim();
            HostResult result = new ServiceEndpointHostClient(URI.create(url), http,
                    Duration.ofSeconds(30)).invoke(token, parsed, capability);
            out.println(new String(HostJson.writeResult(result), StandardCharsets.UTF_8));
            return result.status() == HostResult.Status.DENIED || result.status() == HostResult.Status.HELD ? 1 : 0;
        } catch (ContractException e) {
            err.println("cotal-auth service-endpoint: " + e.code() + ": " + e.getMessage());
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("cotal-auth service-endpoint: " + e.getMessage());
            return 1;
        }
    }

    /**
     * https anywhere; http only to a literal loopback address (stricter than the IdP pin's rule,
     * which takes {@code localhost} too, SPEC §13.14).
     */
    private static boolean safeTransport(URI url) {
        String host = url.getHost() == null ? "" : url.getHost();
        return "https".equals(url.getScheme()) || ("http".equals(url.getScheme())
                && (host.matches("127(\\.\\d{1,3}){3}") || host.equals("[::1]") || host.equals("::1")));
    }
}
