package ai.cotal.auth.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.internal.plane.FileActorLedger;
import ai.cotal.auth.service.AuthHostManifest;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.Principal;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.XKeyPair;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.workspace.BrokerPolicies;
import ai.cotal.workspace.PrivateFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every parser the SDK exposes or reads from disk, fuzzed from valid inputs (see {@link Fuzz}):
 * creds, NATS JWTs, xkey envelopes, service-host requests and results, host manifests, ledger
 * rows, the broker policy and the IdP pin. Each must parse or refuse with a typed error. The
 * package-private stored records are fuzzed in their packages: {@code RowsFuzzTest} (service
 * endpoints) and {@code LifecycleRowsFuzzTest} (lifecycle heads and operations).
 */
class ParserFuzzTest {
    private static final Clock CLOCK = Clock.systemUTC();
    private static final SpaceAuth AUTH = SpaceAuth.create("alpha", CLOCK);

    @TempDir
    Path dir;

    private static void expectClean(Fuzz.Report report) {
        System.out.println("fuzz " + report);
        assertEquals(List.of(), report.failures(), report.toString());
    }

    @Test
    void creds() {
        Creds creds = Creds.mint(AUTH, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
        expectClean(Fuzz.run("creds", Fuzz.utf8(creds.text()),
                input -> Creds.parse(new String(input, StandardCharsets.UTF_8))));
    }

    @Test
    void natsJwts() {
        Creds creds = Creds.mint(AUTH, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
        List<byte[]> seeds = Fuzz.utf8(creds.jwt(), AUTH.account().jwt());
        expectClean(Fuzz.run("nats-jwt", seeds, input -> NatsJwt.decode(new String(input, StandardCharsets.UTF_8))));
        expectClean(Fuzz.run("nats-jwt-user", seeds,
                input -> NatsJwt.decode(new String(input, StandardCharsets.UTF_8), UserClaim.class)));
        expectClean(Fuzz.run("nats-jwt-account", seeds,
                input -> NatsJwt.decode(new String(input, StandardCharsets.UTF_8), AccountClaim.class)));
    }

    /** A JWT whose payload is {@code payload}, signed by {@code signer} over {@code header.payload}. */
    private static String resign(String header, byte[] payload, ai.cotal.core.keys.NKeyPair signer) {
        java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
        String signingInput = header + "." + b64.encodeToString(payload);
        return signingInput + "." + b64.encodeToString(signer.sign(signingInput.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void natsJwtPayloadsResigned() {
        Creds creds = Creds.mint(AUTH, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
        java.util.Base64.Decoder b64 = java.util.Base64.getUrlDecoder();
        String[] user = creds.jwt().split("\\.");
        String[] account = AUTH.account().jwt().split("\\.");
        expectClean(Fuzz.run("nats-jwt-user-payload", List.of(b64.decode(user[1])), input -> NatsJwt.decode(
                resign(user[0], input, AUTH.account().signing()), UserClaim.class)));
        expectClean(Fuzz.run("nats-jwt-account-payload", List.of(b64.decode(account[1])), input -> NatsJwt.decode(
                resign(account[0], input, AUTH.broker().operator()), AccountClaim.class)));
    }

    @Test
    void xkeyEnvelopes() {
        XKeyPair server = XKeyPair.create();
        XKeyPair service = XKeyPair.create();
        byte[] sealed = server.seal("{\"nats\":{\"type\":\"authorization_request\"}}".getBytes(StandardCharsets.UTF_8),
                service.publicKey());
        expectClean(Fuzz.run("xkey-open", List.of(sealed), input -> service.open(input, server.publicKey())));
    }

    @Test
    void serviceHostRequestsAndResults() {
        String rid = "req-0123456789abcdef";
        String iid = "abcdefghijklmnopqrstuvwxyz";
        List<HostRequest> requests = List.of(
                new HostRequest.Register(rid, "weather", iid, "sha256:" + "c".repeat(64), List.of("ask")),
                new HostRequest.Decide(rid, "weather", iid, HostRequest.Decision.APPROVE),
                new HostRequest.NameBind(rid, "forecast", "weather", "u_" + "a".repeat(26), "dns:x", 0),
                new HostRequest.CallerGrant(rid, "weather", iid, new HostRequest.Grantee("u_" + "a".repeat(26), "phone"),
                        List.of("ask")),
                new HostRequest.InstanceList("c3ZjLmFzZw", 10));
        List<byte[]> seeds = requests.stream().map(HostJson::writeRequest).toList();
        expectClean(Fuzz.run("host-request", seeds, HostJson::parseRequest));
        List<byte[]> results = List.of(HostJson.writeResult(HostResult.of(HostResult.Status.HELD,
                "abcdefghijklmnopqrstuvwxyz", "fenced")), HostJson.writeResult(HostResult.of(HostResult.Status.DENIED, null,
                "no such instance")));
        expectClean(Fuzz.run("host-result", results, HostJson::parseResult));
    }

    @Test
    void hostManifests() {
        expectClean(Fuzz.run("host-manifest", Fuzz.utf8("{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"serviceEndpoints\""
                + ":true},{\"space\":\"beta\"}]}"), input -> AuthHostManifest.parse(new String(input, StandardCharsets.UTF_8))));
    }

    @Test
    void filesReadFromDisk() throws Exception {
        ActorLedger ledger = new FileActorLedger(dir, CLOCK);
        ledger.grantActor(Principal.of("u_" + "a".repeat(26), "laptop"), Grant.of(List.of("chat"), List.of("general"),
                List.of()));
        Path row = dir.resolve("actors").resolve("u_" + "a".repeat(26) + ".laptop.json");
        byte[] rowSeed = Files.readAllBytes(row);
        expectClean(Fuzz.run("ledger-row", List.of(rowSeed), input -> {
            PrivateFiles.write(row, input);
            ledger.find(Principal.of("u_" + "a".repeat(26), "laptop"));
        }));

        IdpPin.pin(dir, "https://idp.example");
        Path pin = Files.list(dir).filter(p -> p.getFileName().toString().startsWith("idp")).findFirst().orElseThrow();
        byte[] pinSeed = Files.readAllBytes(pin);
        expectClean(Fuzz.run("idp-pin", List.of(pinSeed), input -> {
            PrivateFiles.write(pin, input);
            IdpPin.read(dir);
        }));

        Path root = dir.resolve("root");
        BrokerPolicies.writeBrokerPolicy(root, new ai.cotal.core.config.BrokerPolicy(ai.cotal.core.config.Transport.plaintext(),
                java.util.Optional.empty()));
        Path policy = Files.walk(root).filter(p -> p.getFileName().toString().equals("broker-policy.json")).findFirst()
                .orElseThrow();
        byte[] policySeed = Files.readAllBytes(policy);
        expectClean(Fuzz.run("broker-policy", List.of(policySeed), input -> {
            PrivateFiles.write(policy, input);
            BrokerPolicies.readBrokerPolicy(root);
        }));
    }
}
