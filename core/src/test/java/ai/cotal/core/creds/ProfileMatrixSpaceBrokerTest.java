package ai.cotal.core.creds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.stores.SpaceStores;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.api.PublishAck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The permission matrix (SPEC §3.5), space-operation family: each profile does on the broker what
 * its grant names, and the broker refuses what it does not.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ProfileMatrixSpaceBrokerTest {
    private static final MintOptions NONE = MintOptions.defaults();

    static PublishAck put(io.nats.client.Connection c, String subject) throws Exception {
        return c.jetStream().publish(subject, "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everySpaceOperationProfileDoesItsJobAndNothingElse(NatsBrokers brokers) throws Exception {
        try (MatrixHarness h = new MatrixHarness(brokers)) {
            h.check("provisioner", h.mint(CredentialProfile.PROVISIONER, NONE),
                    (c, x) -> assertEquals(27, SpaceStores.setup(c, "alpha").size()),
                    Set.of("create-chat", "update-auth", "acl-row", "dm-durable-create"),
                    Map.of("delete-dm", "$JS.API.STREAM.DELETE.DM_alpha", "purge-dm", "$JS.API.STREAM.PURGE.DM_alpha",
                            "next-dm", "$JS.API.CONSUMER.MSG.NEXT.DM_alpha.x", "ack-dm", "$JS.ACK.DM_alpha.x.1.1.1.1.1"),
                    Map.of());
            h.check("teardown", h.mint(CredentialProfile.TEARDOWN, NONE),
                    (c, x) -> assertTrue(c.jetStreamManagement().getStreamNames().contains("CHAT_alpha")),
                    Set.of("delete-chat"), Map.of("purge-dm", "$JS.API.STREAM.PURGE.DM_alpha"), Map.of());
            h.check("operator", h.mint(CredentialProfile.OPERATOR, NONE), (c, x) -> {
                assertTrue(c.jetStreamManagement().getStreamNames().contains("EPC_alpha"));
                assertEquals(0, c.jetStreamManagement().getConsumerNames("CHAT_alpha").size());
            }, Set.of("stream-list"), Map.of("read-chat", "$JS.API.DIRECT.GET.CHAT_alpha",
                    "msg-get-auth", "$JS.API.STREAM.MSG.GET.KV_cotal_auth_alpha"), Map.of());
            h.check("backup", h.mint(CredentialProfile.BACKUP, NONE),
                    (c, x) -> c.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha"),
                    Set.of("snapshot-auth"), Map.of("restore-chat", "$JS.API.STREAM.RESTORE.CHAT_alpha"), Map.of());
            h.check("restore", h.mint(CredentialProfile.RESTORE, NONE),
                    (c, x) -> c.jetStreamManagement().getStreamInfo("CHAT_alpha"),
                    Set.of("restore-auth"), Map.of("snapshot-chat", "$JS.API.STREAM.SNAPSHOT.CHAT_alpha"), Map.of());
            h.check("issuer", h.mint(CredentialProfile.ISSUER, NONE),
                    (c, x) -> put(c, "$KV.cotal_issued_alpha.matrix.row"),
                    Set.of("issued-row"), Map.of("delete-issued", "$JS.API.STREAM.DELETE.KV_cotal_issued_alpha"), Map.of());
            h.check("issued-store-recreate", h.mint(CredentialProfile.ISSUED_STORE_RECREATE, NONE),
                    (c, x) -> c.jetStreamManagement().getStreamInfo("KV_cotal_issued_alpha"), Set.of(),
                    Map.of("delete-accepted-row", "$KV.cotal_accepted_alpha.x"), Map.of());
            h.check("issued-store-restore", h.mint(CredentialProfile.ISSUED_STORE_RESTORE, NONE),
                    (c, x) -> c.jetStreamManagement().getStreamInfo("KV_cotal_accepted_alpha"), Set.of(),
                    Map.of("delete-accepted", "$JS.API.STREAM.DELETE.KV_cotal_accepted_alpha"), Map.of());
            h.check("purger", h.mint(CredentialProfile.PURGER, NONE),
                    (c, x) -> assertTrue(c.jetStreamManagement().purgeStream("DM_alpha").isSuccess()),
                    Set.of("purge-chat"), Map.of("purge-dlv", "$JS.API.STREAM.PURGE.DLV_alpha"), Map.of());
            h.check("channel-writer", h.mint(CredentialProfile.CHANNEL_WRITER, NONE),
                    (c, x) -> put(c, "$KV.cotal_channels_alpha.general"), Set.of(),
                    Map.of("members-row", "$KV.cotal_members_alpha.o.a"), Map.of());
            h.check("channel-purger", h.mint(CredentialProfile.CHANNEL_PURGER, NONE),
                    (c, x) -> assertTrue(c.jetStreamManagement().purgeStream("CHAT_alpha").isSuccess()),
                    Set.of("purge-chat"), Map.of("create-channels", "$JS.API.STREAM.CREATE.KV_cotal_channels_alpha"),
                    Map.of());
            h.check("probe", h.mint(CredentialProfile.PROBE, NONE), (c, x) -> c.flush(Duration.ofSeconds(5)), Set.of(),
                    Map.of("own-chat", "cotal.alpha.chat.local.x.general"), Map.of());
            assertEquals(Map.of(), h.failures(), "the broker's answers, per profile");
        }
    }
}
