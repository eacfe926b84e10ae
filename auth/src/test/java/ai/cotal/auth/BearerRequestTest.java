package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.internal.plane.BearerVerifier;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The bearer request kinds (SPEC §13.14): each refuses a missing or malformed part when built,
 * {@code bad-request} naming the field, and each signs exactly its own {@code act} fields.
 */
class BearerRequestTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final Principal LAPTOP = Principal.of(OWNER, "laptop");
    private static final LifecycleUid UID = new LifecycleUid("abcdefghijklmnopqrstuvwxyz");
    private static final CredentialId CREDENTIAL = new CredentialId("abcdefghijklmnopqrstuvwxyz");
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final EndpointInstance WEATHER = new EndpointInstance("weather", "0123456789abcdefghijklmnop");
    private static final String IID = "0123456789abcdefghijklmnop";
    private static final String GRANT = IID + ".sessionsessionsessionsessio";

    private final BearerIssuer issuer = BearerIssuer.load(PlaneFixture.provisioned("alpha"), "alpha", Clock.systemUTC());
    private final BearerVerifier verifier = new BearerVerifier("alpha", issuer.publicKey(), Clock.systemUTC());

    /** Builds a request of each kind from the same common parts. */
    private interface Kind {
        BearerRequest build(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
                Duration ttl);
    }

    private static final Map<String, Kind> KINDS = Map.of(
            "member", BearerRequest::member,
            "serving", (p, s, u, c, t) -> new BearerRequest.Serving(p, s, u, c, t, Optional.empty(), WEATHER),
            "sessionCaller", (p, s, u, c, t) -> new BearerRequest.SessionCaller(p, s, u, c, t, Optional.empty(), GRANT),
            "managerCaller", BearerRequest::managerCaller);

    private static void refusedNaming(String field, Executable build, String kind) {
        CotalException refused = assertThrows(CotalException.class, build, kind + " without a good " + field);
        assertEquals(ErrorCode.BAD_REQUEST, refused.code(), refused.getMessage());
        assertEquals(field, refused.getMessage().substring(0, refused.getMessage().indexOf(':')), refused.getMessage());
    }

    @Test
    void everyKindRefusesAMissingOrMalformedCommonPartNamingIt() {
        List<String> chat = List.of("chat");
        KINDS.forEach((name, kind) -> {
            refusedNaming("principal", () -> kind.build(null, chat, UID, CREDENTIAL, TTL), name);
            refusedNaming("scope", () -> kind.build(LAPTOP, null, UID, CREDENTIAL, TTL), name);
            refusedNaming("scope[1]", () -> kind.build(LAPTOP, Arrays.asList("chat", null), UID, CREDENTIAL, TTL), name);
            refusedNaming("scope[0]", () -> kind.build(LAPTOP, List.of(">"), UID, CREDENTIAL, TTL), name);
            refusedNaming("scope[0]", () -> kind.build(LAPTOP, List.of("chat..general"), UID, CREDENTIAL, TTL), name);
            refusedNaming("lifecycleUid", () -> kind.build(LAPTOP, chat, null, CREDENTIAL, TTL), name);
            refusedNaming("credentialId", () -> kind.build(LAPTOP, chat, UID, null, TTL), name);
            for (Duration ttl : Arrays.asList(null, Duration.ZERO, Duration.ofSeconds(-1), BearerRequest.MAX_TTL.plusSeconds(1))) {
                refusedNaming("ttl", () -> kind.build(LAPTOP, chat, UID, CREDENTIAL, ttl), name + " ttl " + ttl);
            }
            assertEquals(BearerRequest.MAX_TTL, kind.build(LAPTOP, chat, UID, CREDENTIAL, BearerRequest.MAX_TTL).ttl(),
                    name + ": the longest bearer is allowed");
        });
    }

    @Test
    void eachKindRefusesAMissingOrMalformedPartOfItsOwnNamingIt() {
        refusedNaming("instance", () -> BearerRequest.serving(LAPTOP, UID, CREDENTIAL, TTL, null), "serving");
        for (String grant : Arrays.asList(null, "", IID, IID + ".", IID + ".SHORT", IID + "." + IID + ".x")) {
            refusedNaming("sessionGrant", () -> BearerRequest.sessionCaller(LAPTOP, UID, CREDENTIAL, TTL, grant),
                    "sessionCaller " + grant);
        }
        refusedNaming("managerInstanceId", () -> BearerRequest.managerCaller(LAPTOP, List.of("run-start"), UID,
                CREDENTIAL, TTL, null), "managerCaller");
    }

    @Test
    void aNullOptionalIsNone() {
        assertEquals(Optional.empty(), new BearerRequest.Member(LAPTOP, List.of(), UID, CREDENTIAL, TTL, null).parent());
        assertEquals(Optional.empty(), new BearerRequest.ManagerCaller(LAPTOP, List.of(), UID, CREDENTIAL, TTL, null, null)
                .managerInstanceId());
    }

    @Test
    void eachKindCarriesItsViewAndTheScopeAsGiven() {
        assertEquals(Optional.empty(), BearerRequest.member(new ConnectCredential(CREDENTIAL, LAPTOP, UID), TTL).view());
        assertEquals(List.of(), BearerRequest.member(new ConnectCredential(CREDENTIAL, LAPTOP, UID), TTL).scope(), "the short form asks for none");
        assertEquals(Optional.of("endpoint-server"), BearerRequest.serving(LAPTOP, UID, CREDENTIAL, TTL, WEATHER).view());
        assertEquals(Optional.of("session-caller"), BearerRequest.sessionCaller(LAPTOP, UID, CREDENTIAL, TTL, GRANT).view());
        assertEquals(Optional.of("manager-caller"), BearerRequest.managerCaller(LAPTOP, List.of("run-start"), UID,
                CREDENTIAL, TTL).view());
        List<String> scope = new ArrayList<>(List.of("chat"));
        BearerRequest member = BearerRequest.member(LAPTOP, scope, UID, CREDENTIAL, TTL);
        scope.add("later");
        assertEquals(List.of("chat"), member.scope(), "the request keeps a copy");
    }

    @Test
    void eachKindSignsExactlyItsOwnActFieldsAndVerifiesAsIssued() throws Exception {
        Principal desk = Principal.of(OWNER, "desk");
        assertEquals(List.of("owner", "actor", "scope", "parent", "lifecycleUid", "credentialId"),
                act(new BearerRequest.Member(LAPTOP, List.of("chat"), UID, CREDENTIAL, TTL, Optional.of(desk))));
        assertEquals(List.of("owner", "actor", "scope", "lifecycleUid", "credentialId", "view", "endpoint", "instanceId"),
                act(BearerRequest.serving(LAPTOP, UID, CREDENTIAL, TTL, WEATHER)));
        assertEquals(List.of("owner", "actor", "scope", "lifecycleUid", "credentialId", "view", "sessionGrant"),
                act(BearerRequest.sessionCaller(LAPTOP, UID, CREDENTIAL, TTL, GRANT)));
        assertEquals(List.of("owner", "actor", "scope", "lifecycleUid", "credentialId", "view"),
                act(BearerRequest.managerCaller(LAPTOP, List.of("run-start"), UID, CREDENTIAL, TTL)));
        assertEquals(List.of("owner", "actor", "scope", "lifecycleUid", "credentialId", "view", "managerInstanceId"),
                act(BearerRequest.managerCaller(LAPTOP, List.of("run-start"), UID, CREDENTIAL, TTL, new InstanceId(IID))));

        BearerClaims member = verifier.verify(issuer.issue(new BearerRequest.Member(LAPTOP, List.of("chat"), UID,
                CREDENTIAL, TTL, Optional.of(desk))));
        assertEquals(new ConnectAttempt(LAPTOP, List.of("chat"), UID, CREDENTIAL), member.attempt());
        assertEquals(Optional.of(desk), member.parent());
        assertEquals(Optional.empty(), member.view());
        assertEquals(Optional.of(WEATHER), verifier.verify(issuer.issue(BearerRequest.serving(LAPTOP, UID, CREDENTIAL,
                TTL, WEATHER))).serving());
        assertEquals(Optional.of(GRANT), verifier.verify(issuer.issue(BearerRequest.sessionCaller(LAPTOP, UID, CREDENTIAL,
                TTL, GRANT))).sessionGrant());
        BearerClaims caller = verifier.verify(issuer.issue(BearerRequest.managerCaller(LAPTOP, List.of("run-start"), UID,
                CREDENTIAL, TTL, new InstanceId(IID))));
        assertEquals(Optional.of("manager-caller"), caller.view());
        assertEquals(List.of("run-start"), caller.scope());
        assertEquals(Optional.of(new InstanceId(IID)), caller.managerInstanceId());
        assertEquals(TTL.toSeconds(), caller.expiresAt() - caller.issuedAt(), "the lifetime is the request's");
    }

    /** The {@code act} claim's fields, in the order signed. */
    private List<String> act(BearerRequest request) throws Exception {
        JsonNode payload = new ObjectMapper().readTree(SignedJWT.parse(issuer.issue(request)).getPayload().toString());
        List<String> fields = new ArrayList<>();
        payload.path("act").fieldNames().forEachRemaining(fields::add);
        return fields;
    }
}
