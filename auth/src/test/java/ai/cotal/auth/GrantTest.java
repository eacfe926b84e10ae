package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A grant's grammar at construction and the subjects it says it opens (SPEC §13.14). */
class GrantTest {
    private static final Principal LAPTOP = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
    private static final String NONCE = InboxNonce.of(LAPTOP, "fixed-random");

    private static void assertBadRequest(String field, org.junit.jupiter.api.function.Executable call) {
        CotalException e = assertThrows(CotalException.class, call, field);
        assertEquals(ErrorCode.BAD_REQUEST, e.code(), e.getMessage());
        assertEquals(field, e.getMessage().substring(0, e.getMessage().indexOf(':')), e.getMessage());
    }

    @Test
    void publishItemsOpenTheActorsOwnSenderSubjectsAndSubscribeItemsEveryMembersChannel() {
        GrantSubjects subjects = Grant.of(List.of("chat", "run-start"), List.of("general", "team.news"),
                List.of("general", "a:b")).subjects(new SpaceName("my space"), LAPTOP, NONCE);
        assertEquals(List.of("cotal.my_space.chat.u_abcdefghijklmnopqrstuvwxyz.laptop.general",
                "cotal.my_space.chat.u_abcdefghijklmnopqrstuvwxyz.laptop.a:b"), subjects.publish());
        assertEquals(List.of("_INBOX_" + NONCE + ".>", "cotal.my_space.chat.*.*.general",
                "cotal.my_space.chat.*.*.team.news"), subjects.subscribe(), "the inbox first, then the channels");
    }

    @Test
    void scopeRoleParentAndLabelOpenNoSubject() {
        Grant grant = new Grant(List.of("chat", "supervise"), List.of(), List.of(), Optional.of("ops"),
                Optional.of(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "mgr")), Optional.of("the laptop"));
        GrantSubjects subjects = grant.subjects(new SpaceName("alpha"), LAPTOP, NONCE);
        assertEquals(List.of(), subjects.publish(), "no publish item: every publish is denied");
        assertEquals(List.of("_INBOX_" + NONCE + ".>"), subjects.subscribe());
    }

    @Test
    void aNonceOfAnotherPrincipalOrAMissingArgumentIsRefusedNamingIt() {
        Grant grant = Grant.of(List.of(), List.of("general"), List.of());
        String phones = InboxNonce.forPrincipal(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "phone"));
        assertBadRequest("nonce", () -> grant.subjects(new SpaceName("alpha"), LAPTOP, phones));
        assertBadRequest("nonce", () -> grant.subjects(new SpaceName("alpha"), LAPTOP, "short"));
        assertBadRequest("nonce", () -> grant.subjects(new SpaceName("alpha"), LAPTOP, null));
        assertBadRequest("space", () -> grant.subjects(null, LAPTOP, NONCE));
        assertBadRequest("principal", () -> grant.subjects(new SpaceName("alpha"), null, NONCE));
    }

    @Test
    void aWildcardAnEmptyTokenOrAMissingListIsRefusedAtConstruction() {
        assertBadRequest("allowPublish[1]", () -> Grant.of(List.of(), List.of(), List.of("general", "general.>")));
        assertBadRequest("allowSubscribe[0]", () -> Grant.of(List.of(), List.of("*"), List.of()));
        assertBadRequest("scope[0]", () -> Grant.of(List.of("a..b"), List.of(), List.of()));
        assertBadRequest("scope", () -> Grant.of(null, List.of(), List.of()));
        assertEquals(Optional.empty(), new Grant(List.of(), List.of(), List.of(), null, null, null).role());
    }
}
