package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.IdpPin;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oidc kind of IdP pin (SPEC §13.14): discovery once, closed idp.json, old files, re-pinning
 * (another provider refused, other algorithms of the same one re-pinned and logged), localhost as
 * loopback, options.
 */
class OidcPinTest {
    @TempDir
    Path stateDir;

    @Test
    void discoveryIsReadOnceAndTheFileIsClosed() throws Exception {
        try (OidcTestProvider idp = new OidcTestProvider()) {
            IdpPin pin = IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space", List.of("RS256"));
            assertEquals(new IdpPin(IdpPin.Kind.OIDC, idp.issuer(), idp.issuer(), "cotal-space",
                    idp.issuer() + "/protocol/openid-connect/certs", List.of("RS256")), pin);
            assertEquals(Optional.of(pin), IdpPin.read(stateDir));
            idp.misstateIssuer("https://changed.example"); // a second pin reads no document
            assertEquals(pin, IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space", List.of("RS256")));
            CotalException other = assertThrows(CotalException.class,
                    () -> IdpPin.pinOidc(stateDir, idp.issuer(), "another-client", List.of()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, other.code());
            assertThrows(CotalException.class, () -> IdpPin.pin(stateDir, "https://idp.example"));

            Path file = stateDir.resolve("idp.json");
            String text = Files.readString(file);
            Files.writeString(file, text.replace("}", ",\"extra\":1}"));
            assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class, () -> IdpPin.read(stateDir)).code());
            Files.writeString(file, text.replace("\"RS256\"", "\"HS256\""));
            assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class, () -> IdpPin.read(stateDir)).code());
            Files.writeString(file, text.replace("\"oidc\"", "\"saml\""));
            assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class, () -> IdpPin.read(stateDir)).code());
        }
    }

    /** What slf4j-simple (the tests' backend, which writes to the current {@code System.err}) logs while {@code work} runs. */
    static String logged(Runnable work) {
        PrintStream before = System.err;
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        System.setErr(new PrintStream(lines, true, StandardCharsets.UTF_8));
        try {
            work.run();
        } finally {
            System.setErr(before);
        }
        return lines.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anotherAlgorithmListOfTheSameProviderIsALoggedRePinAndNoListKeepsThePinsLogged() throws Exception {
        try (OidcTestProvider idp = new OidcTestProvider()) {
            IdpPin first = IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space", List.of("RS256"));
            idp.misstateIssuer("https://changed.example"); // a re-pin reads no document
            IdpPin[] repinned = new IdpPin[1];
            String log = logged(() -> repinned[0] = IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space",
                    List.of("ES256", "ES512")));
            assertEquals(new IdpPin(IdpPin.Kind.OIDC, first.url(), first.issuer(), first.audience(), first.jwksUri(),
                    List.of("ES256", "ES512")), repinned[0], "the same provider, client and keys: only the algorithms change");
            assertEquals(Optional.of(repinned[0]), IdpPin.read(stateDir), "written");
            assertTrue(log.contains("WARN ai.cotal.auth.IdpPin - idp.json: re-pinned " + idp.issuer()
                    + " (client cotal-space) from algorithms [RS256] to [ES256, ES512]; owners unchanged"), log);

            String kept = logged(() -> assertEquals(repinned[0], IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space",
                    List.of())));
            assertTrue(kept.contains("INFO ai.cotal.auth.IdpPin - idp.json: no algorithms configured; keeping the pin's"
                    + " [ES256, ES512] for " + idp.issuer()), kept);
            assertEquals(Optional.of(repinned[0]), IdpPin.read(stateDir));
            assertEquals("", logged(() -> IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space", List.of("ES256", "ES512"))),
                    "the same list again: a silent no-op");
            CotalException other = assertThrows(CotalException.class,
                    () -> IdpPin.pinOidc(stateDir, idp.issuer(), "another-client", List.of("RS256")));
            assertEquals(ErrorCode.FAILED_PRECONDITION, other.code(), "another client id is still another provider");
            assertEquals(Optional.of(repinned[0]), IdpPin.read(stateDir));
        }
    }

    @Test
    void localhostIsLoopbackForHttpIssuersAndNoOtherNameIs() throws Exception {
        AuthServiceOptions.builder().oidc("http://localhost:8080/realms/x", "c", List.of()).build();
        AuthServiceOptions.builder().oidc("http://LOCALHOST:8080/realms/x", "c", List.of()).build();
        for (String issuer : List.of("http://localhost.example.com/realms/x", "http://idp.localhost/realms/x",
                "http://example.com/realms/x")) {
            CotalException e = assertThrows(CotalException.class, () -> IdpPin.checkOidc(issuer, "c", List.of()), issuer);
            assertTrue(e.getMessage().startsWith("oidcIssuer: must be https (http only on loopback: 127.0.0.1, ::1 or"
                    + " localhost)"), e.getMessage());
        }
        try (OidcTestProvider idp = new OidcTestProvider()) {
            String issuer = idp.issuer().replace("127.0.0.1", "localhost");
            idp.misstateIssuer(issuer); // a provider configured under its localhost name
            IdpPin pin = IdpPin.pinOidc(stateDir, issuer, "cotal-space", List.of());
            assertEquals(issuer, pin.issuer(), "pinned through the discovery document at localhost");
            assertEquals(List.of("RS256", "ES256"), pin.algorithms());
        }
        Path stock = stateDir.resolve("stock");
        assertEquals("http://localhost:9000", IdpPin.pin(stock, "http://localhost:9000/").issuer());
    }

    @Test
    void anOldStockFileReadsAsTheStockKind() throws Exception {
        Files.createDirectories(stateDir);
        Files.setPosixFilePermissions(stateDir, PosixFilePermissions.fromString("rwx------"));
        Files.write(stateDir.resolve("idp.json"), ("{\"ver\":1,\"url\":\"https://idp.example\",\"issuer\":\"https://idp.example\","
                + "\"audience\":\"https://idp.example\",\"jwksUri\":\"https://idp.example/jwks\"}").getBytes(StandardCharsets.UTF_8));
        IdpPin pin = IdpPin.read(stateDir).orElseThrow();
        assertEquals(IdpPin.Kind.STOCK, pin.kind());
        assertEquals(List.of("EdDSA"), pin.algorithms());
        assertEquals(pin, IdpPin.pin(stateDir, "https://idp.example"));
        assertFalse(Files.readString(stateDir.resolve("idp.json")).contains("kind"), "stock files are written as before");
    }

    @Test
    void aProviderThatIsDownOrMisstatesItsIssuerPinsNothing() throws Exception {
        String issuer;
        try (OidcTestProvider idp = new OidcTestProvider()) {
            issuer = idp.issuer();
            idp.misstateIssuer("http://127.0.0.1:1/realms/cotal");
            CotalException misstated = assertThrows(CotalException.class,
                    () -> IdpPin.pinOidc(stateDir, idp.issuer(), "cotal-space", List.of()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, misstated.code());
            assertTrue(misstated.getMessage().contains("issuer"), misstated.getMessage());
        }
        CotalException down = assertThrows(CotalException.class, () -> IdpPin.pinOidc(stateDir, issuer, "cotal-space", List.of()));
        assertEquals(ErrorCode.UNAVAILABLE, down.code());
        assertFalse(Files.exists(stateDir.resolve("idp.json")), "nothing was written");
    }

    @Test
    void aManifestEntryCarriesAnOidcProviderCheckedLikeTheOptions() {
        var entry = ai.cotal.auth.service.AuthHost.parseAuthHostManifest("{\"ver\":1,\"spaces\":[{\"space\":\"alpha\","
                + "\"oidc\":{\"issuer\":\"https://kc.example.com/realms/acme\",\"clientId\":\"cotal-space\"}},"
                + "{\"space\":\"beta\"}]}").spaces();
        assertEquals(new AuthServiceOptions.Oidc("https://kc.example.com/realms/acme", "cotal-space", List.of()),
                entry.get(0).oidc());
        assertEquals(null, entry.get(1).oidc());
        for (String bad : List.of("{\"issuer\":\"http://kc.example.com\",\"clientId\":\"c\"}",
                "{\"issuer\":\"https://kc.example.com\"}", "{\"issuer\":\"https://kc.example.com\",\"clientId\":\"c\","
                        + "\"algorithms\":[\"HS256\"]}", "{\"issuer\":\"https://kc.example.com\",\"clientId\":\"c\",\"x\":1}")) {
            CotalException e = assertThrows(CotalException.class, () -> ai.cotal.auth.service.AuthHost.parseAuthHostManifest(
                    "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"oidc\":" + bad + "}]}"), bad);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), bad);
            assertTrue(e.getMessage().startsWith("spaces[0].oidc") || e.getMessage().contains("oidc"), e.getMessage());
        }
    }

    @Test
    void optionsAreValidatedNamingTheField() {
        for (List<Object> c : List.of(List.of("http://idp.example", "c", List.of(), "oidcIssuer"),
                List.of("https://idp.example?x=1", "c", List.of(), "oidcIssuer"),
                List.of("https://idp.example", "", List.of(), "oidcClientId"),
                List.of("https://idp.example", "c", List.of("HS256"), "algorithms"),
                List.of("https://idp.example", "c", List.of("none"), "algorithms"))) {
            @SuppressWarnings("unchecked")
            List<String> algs = (List<String>) c.get(2);
            CotalException e = assertThrows(CotalException.class, () -> AuthServiceOptions.builder()
                    .oidc((String) c.get(0), (String) c.get(1), algs).build());
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().startsWith(c.get(3) + ":"), e.getMessage());
        }
        CotalException nullAlgs = assertThrows(CotalException.class, () -> IdpPin.pinOidc(stateDir, "https://idp.example",
                "c", null));
        assertTrue(nullAlgs.getMessage().startsWith("algorithms:"), nullAlgs.getMessage());
        for (int fetches : new int[] {0, 61}) {
            CotalException rate = assertThrows(CotalException.class, () -> AuthServiceOptions.builder()
                    .jwksFetchesPerMinute(fetches).build());
            assertTrue(rate.getMessage().startsWith("jwksFetchesPerMinute:"), rate.getMessage());
        }
    }
}
