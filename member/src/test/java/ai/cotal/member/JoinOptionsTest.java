package ai.cotal.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Bad options are refused at build, naming the field (SPEC §13.24). */
class JoinOptionsTest {
    private static final Supplier<String> TOKENS = () -> "id-token";

    private static String refused(Runnable build) {
        MemberException e = assertThrows(MemberException.class, build::run);
        assertEquals("bad-request", e.code());
        return e.getMessage();
    }

    @Test
    void eachBadOptionIsRefusedNamingItsField() {
        assertEquals("joinUrl: http is only for a loopback host; use https", refused(() ->
                JoinOptions.builder(URI.create("http://auth.example.com"), "laptop", TOKENS).build()));
        assertEquals("joinUrl: must be https (or http to a loopback host)", refused(() ->
                JoinOptions.builder(URI.create("ftp://auth.example.com"), "laptop", TOKENS).build()));
        assertEquals("joinUrl: must not carry user info, a query or a fragment", refused(() ->
                JoinOptions.builder(URI.create("https://u:p@auth.example.com"), "laptop", TOKENS).build()));
        assertEquals("joinUrl: must be an absolute http(s) URL with a host", refused(() ->
                JoinOptions.builder(null, "laptop", TOKENS).build()));
        assertEquals("actor: must be 1 to 64 of [A-Za-z0-9_]", refused(() ->
                JoinOptions.builder(URI.create("https://auth.example.com"), "lap.top", TOKENS).build()));
        assertEquals("idTokens: is required", refused(() ->
                JoinOptions.builder(URI.create("https://auth.example.com"), "laptop", null).build()));
        assertEquals("renewMargin: must be 1 s to 1 h", refused(() -> JoinOptions.builder(
                URI.create("https://auth.example.com"), "laptop", TOKENS).renewMargin(Duration.ofMillis(10)).build()));
        assertEquals("httpTimeout: must be 1 s to 2 min", refused(() -> JoinOptions.builder(
                URI.create("https://auth.example.com"), "laptop", TOKENS).httpTimeout(Duration.ofMinutes(3)).build()));
    }

    @Test
    void loopbackHttpAndHttpsAreAccepted() {
        for (String url : new String[] {"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080",
                "https://auth.example.com"}) {
            assertEquals(URI.create(url), JoinOptions.builder(URI.create(url), "laptop", TOKENS).build().joinUrl());
        }
    }
}
