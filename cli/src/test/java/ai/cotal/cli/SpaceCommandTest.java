package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.workspace.SecretKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-space commands' refusals that need no broker: usage, bad names, and {@code up} with an unreadable tenant. */
class SpaceCommandTest {
    private ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path root;

    private int run(String... args) {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void badArgumentsAreUsageAndWriteNothing() {
        assertEquals(2, run("space"));
        assertEquals(2, run("space", "drop", "--root", root.toString()));
        assertEquals(2, run("space", "retire", "--root", root.toString(), "--space", "alpha"));
        assertTrue(err.toString().contains("--server is required"), err.toString());
        assertEquals(2, run("space", "add", "--root", root.toString(), "--space", "alpha", "--space", "beta"));
        assertTrue(err.toString().contains("--space given twice"), err.toString());
        assertEquals(2, run("space", "add", "--root", root.toString(), "--space", "a\u0001b"));
        assertTrue(err.toString().contains("bad-request: space"), err.toString());
        assertEquals(2, run("up", "--root", root.toString(), "--port", "70000"));
        assertFalse(Files.exists(root.resolve(".cotal")), "nothing was written");
    }

    @Test
    void upRefusesWhileATenantRecordIsUnreadableAndNamesIt() throws Exception {
        assertEquals(1, run("up", "--root", root.toString()));
        assertTrue(err.toString().contains("add a space first"), err.toString());
        for (String space : new String[] {"alpha", "beta"}) {
            assertEquals(0, run("space", "add", "--root", root.toString(), "--space", space), err.toString());
        }
        assertEquals(0, run("up", "--root", root.toString()), err.toString());
        Path config = root.resolve(UpCommand.CONFIG);
        byte[] rendered = Files.readAllBytes(config);
        assertTrue(new String(rendered, StandardCharsets.UTF_8).contains("type: full"), "the full resolver");
        assertTrue(out.toString().contains("alpha") && out.toString().contains("beta"), out.toString());

        Path beta = root.resolve(".cotal").resolve(SecretKeys.accountKey("beta"));
        Files.writeString(beta, "{\"version\": 1, \"space\": \"beta\"");
        assertEquals(1, run("up", "--root", root.toString()));
        assertTrue(err.toString().contains("'beta'") && err.toString().contains(SecretKeys.accountKey("beta")),
                "names the unreadable tenant and its record: " + err);
        assertFalse(err.toString().contains("'alpha'"), err.toString());
        assertArrayEquals(rendered, Files.readAllBytes(config), "nothing was rendered over the last config");
        assertEquals(1, run("space", "list", "--root", root.toString()));
        assertTrue(out.toString().lines().anyMatch(l -> l.contains("beta") && l.contains("unreadable")), out.toString());
        assertTrue(out.toString().lines().anyMatch(l -> l.contains("alpha") && l.contains("live")), out.toString());
    }

    @Test
    void anAddInterruptedBeforeItsRecordIsFinishedByTheNextAddWithEverySecret() {
        // an earlier add wrote its account's secrets, then stopped before the account record
        java.time.Clock clock = java.time.Clock.systemUTC();
        ai.cotal.core.trust.SpaceAuth earlier = ai.cotal.core.trust.SpaceAuth.create("alpha", clock);
        ai.cotal.workspace.FileSecretStore secrets = new ai.cotal.workspace.FileSecretStore(root);
        ai.cotal.auth.SpaceProvisioning.forSpace(earlier, ai.cotal.core.trust.CalloutAuth.create("alpha",
                earlier.broker(), earlier.account().accountPublicKey(), clock)).withoutSystemCredentials().write(secrets);
        byte[] issuer = secrets.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow();
        assertEquals(0, run("space", "add", "--root", root.toString(), "--space", "alpha"), err.toString());
        Tenants.Tenant alpha = new Tenants(root, clock).require("alpha");
        assertEquals(alpha.account().accountPublicKey(), ai.cotal.auth.service.ServiceMaterial.loadSigner(secrets,
                "alpha").accountPublicKey(), "the service keys are the recorded account's");
        assertArrayEquals(issuer, secrets.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow(), "the issuer key is kept");
        assertEquals(java.util.List.of(), ai.cotal.auth.SpaceProvisioning.missing(secrets, "alpha"),
                "the add minted the observer and the evictor with the system seed the root keeps: serve has all it needs");
        for (String key : java.util.List.of(SecretKeys.membershipObserverCredsKey("alpha"),
                SecretKeys.connectionEvictorCredsKey("alpha"))) {
            String jwt = ai.cotal.core.creds.Creds.parse(secrets.getText(key).orElseThrow()).jwt();
            assertTrue(jwt.length() > 0 && ai.cotal.core.jwt.NatsJwt.decode(jwt).iss().equals(new Tenants(root, clock)
                    .broker().systemAccount()), key + " is a user of the root's system account");
        }
        String observer = ai.cotal.core.creds.Creds.parse(secrets.getText(SecretKeys.membershipObserverCredsKey("alpha"))
                .orElseThrow()).jwt();
        assertTrue(new String(java.util.Base64.getUrlDecoder().decode(observer.split("\\.")[1]), StandardCharsets.UTF_8)
                .contains(alpha.account().accountPublicKey()), "the observer watches the recorded account");
    }

    @Test
    void aClaimDatedAheadOfTheClockIsRefusedUnavailableAndNotWritten() {
        assertEquals(0, run("space", "add", "--root", root.toString(), "--space", "alpha"), err.toString());
        java.time.Clock clock = java.time.Clock.systemUTC();
        Tenants tenants = new Tenants(root, clock);
        Tenants.Tenant alpha = tenants.require("alpha");
        String before = alpha.account().jwt();
        String ahead = ai.cotal.core.claims.AccountClaims.retire(tenants.broker(), before,
                clock.instant().getEpochSecond() + 60);
        ai.cotal.core.CotalException refused = org.junit.jupiter.api.Assertions.assertThrows(
                ai.cotal.core.CotalException.class, () -> tenants.store(alpha, ahead));
        assertEquals(ai.cotal.core.ErrorCode.UNAVAILABLE, refused.code());
        assertTrue(refused.getMessage().contains("nothing was written: run the command again in "), refused.getMessage());
        assertEquals(before, tenants.require("alpha").account().jwt(), "the stored claim is the one before");
        String now = ai.cotal.core.claims.AccountClaims.retire(tenants.broker(), before, clock.instant().getEpochSecond());
        assertTrue(Tenants.retired(tenants.store(alpha, now).account().jwt()), "a claim of now is stored");
    }
}
