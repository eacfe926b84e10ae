package ai.cotal.core.creds;

import static ai.cotal.core.creds.ProfileMatrixSpaceBrokerTest.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Subscription;
import io.nats.client.api.ConsumerConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The permission matrix (SPEC §3.5), messaging and incarnation family: each profile does on the
 * broker what its grant names, and the broker refuses what it does not, including the agent's
 * explicit create-deny on DM_, TASK_ and DLV_.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ProfileMatrixMessagingBrokerTest {
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private static final String OTHER_UID = "zyxwvutsrqponmlkjihgfedcba";
    private static final MintOptions NONE = MintOptions.defaults();
    private static final MintOptions INCARNATION = MintOptions.builder().owner("ownr").actor("bob").lifecycleUid(UID)
            .allowPublish(java.util.List.of("general")).allowSubscribe(java.util.List.of("general")).build();

    @Test
    void everyMessagingProfileDoesItsJobAndNothingElse(NatsBrokers brokers) throws Exception {
        try (MatrixHarness h = new MatrixHarness(brokers)) {
            h.check("delivery", h.mint(CredentialProfile.DELIVERY, NONE),
                    (c, x) -> put(c, "cotal.alpha.dlv.ownr.bob.m1"), Set.of("sub-ctl-delivery"),
                    Map.of("dm-publish", "cotal.alpha.inst.a.b.c.d", "inbox-other-durable", "$JS.API.CONSUMER.MSG.NEXT.INBOX_alpha.x"),
                    Map.of());
            h.check("observer", h.mint(CredentialProfile.OBSERVER, NONE), (c, x) -> {
                Subscription s = c.subscribe("cotal.alpha.chat.>");
                c.flush(Duration.ofSeconds(5));
                x.admin.publish("cotal.alpha.chat.o.a.general", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.chat.o.a.general");
            }, Set.of("sub-chat-all"), Map.of(), Map.of("sub-inst", "cotal.alpha.inst.>"));
            h.check("admin", h.mint(CredentialProfile.ADMIN, NONE), (c, x) -> {
                Subscription s = c.subscribe("cotal.alpha.inst.>");
                c.flush(Duration.ofSeconds(5));
                x.admin.publish("cotal.alpha.inst.a.b.c.d", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.inst.a.b.c.d");
                c.jetStreamManagement().getStreamInfo("DM_alpha");
            }, Set.of("sub-chat-all", "sub-svc"), Map.of(), Map.of());
            h.check("agent", h.mint(CredentialProfile.AGENT, INCARNATION), (c, x) -> {
                put(c, "cotal.alpha.inst.x.y.ownr.bob");
                put(c, "cotal.alpha.chat.ownr.bob.general");
                put(c, "$KV.cotal_presence_alpha.ownr.bob");
            }, Set.of(), Map.ofEntries(
                    Map.entry("dm-create", "$JS.API.CONSUMER.CREATE.DM_alpha.x"),
                    Map.entry("task-create-bare", "$JS.API.CONSUMER.CREATE.TASK_alpha"),
                    Map.entry("task-create", "$JS.API.CONSUMER.CREATE.TASK_alpha.x"),
                    Map.entry("task-durable", "$JS.API.CONSUMER.DURABLE.CREATE.TASK_alpha.x"),
                    Map.entry("dlv-create-bare", "$JS.API.CONSUMER.CREATE.DLV_alpha"),
                    Map.entry("dlv-create", "$JS.API.CONSUMER.CREATE.DLV_alpha.x"),
                    Map.entry("dlv-durable", "$JS.API.CONSUMER.DURABLE.CREATE.DLV_alpha.x"),
                    Map.entry("own-dm-durable-create", "$JS.API.CONSUMER.CREATE.DM_alpha.dm_ownr-bob-" + UID),
                    Map.entry("other-dm-durable", "$JS.API.CONSUMER.MSG.NEXT.DM_alpha.dm_ownr-bob-" + OTHER_UID),
                    Map.entry("other-presence", "$KV.cotal_presence_alpha.ownr.alice"),
                    Map.entry("spoofed-dm", "cotal.alpha.inst.x.y.ownr.alice"),
                    Map.entry("task-as-other", "cotal.alpha.task.role.ownr.alice")),
                    Map.of("sub-other-ctl", "cotal.alpha.ctl.delivery.ownr.alice.>"));
            h.check("supervisor", h.mint(CredentialProfile.SUPERVISOR, INCARNATION_NO_UID),
                    (c, x) -> put(c, "$KV.cotal_manager_alpha.lease.mgr1"), Set.of("manager-lease"),
                    Map.of("other-presence", "$KV.cotal_presence_alpha.ownr.alice"), Map.of());
            h.check("membership-rw", h.mint(CredentialProfile.MEMBERSHIP_RW, NONE),
                    (c, x) -> put(c, "$KV.cotal_membership_alpha.ownr.bob"), Set.of(),
                    Map.of("members-row", "$KV.cotal_members_alpha.ownr.bob"), Map.of());
            h.check("control-caller-privileged", h.mint(CredentialProfile.CONTROL_CALLER_PRIVILEGED, NONE), (c, x) -> {
                Subscription s = x.watch("cotal.alpha.ctl.delivery.*.*");
                c.publish("cotal.alpha.ctl.delivery.ownr.bob", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.ctl.delivery.ownr.bob");
            }, Set.of(), Map.of(), Map.of());
            h.check("control-caller-admin", h.mint(CredentialProfile.CONTROL_CALLER_ADMIN, NONE), (c, x) -> {
                Subscription s = x.watch("cotal.alpha.ctl.delivery-admin.*.*");
                c.publish("cotal.alpha.ctl.delivery-admin.ownr.bob", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.ctl.delivery-admin.ownr.bob");
            }, Set.of("ctl-admin-other"), Map.of("ctl-delivery", "cotal.alpha.ctl.delivery.ownr.bob"), Map.of());
            h.check("lifecycle-executor", h.mint(CredentialProfile.LIFECYCLE_EXECUTOR, INCARNATION), (c, x) -> {
                c.jetStreamManagement().addOrUpdateConsumer("DM_alpha", ConsumerConfiguration.builder()
                        .durable("dm_ownr-bob-" + UID).filterSubject("cotal.alpha.inst.ownr.bob.>").build());
                put(c, "$KV.cotal_acl_alpha.ownr.bob." + UID);
            }, Set.of(), Map.of("other-durable", "$JS.API.CONSUMER.DURABLE.CREATE.DM_alpha.dm_ownr-bob-" + OTHER_UID,
                    "other-acl", "$KV.cotal_acl_alpha.ownr.bob." + OTHER_UID), Map.of());
            h.check("deprovisioner", h.mint(CredentialProfile.DEPROVISIONER, INCARNATION),
                    (c, x) -> assertTrue(c.jetStreamManagement().deleteConsumer("DM_alpha", "dm_ownr-bob-" + UID)),
                    Set.of(), Map.of("other-durable", "$JS.API.CONSUMER.DELETE.DM_alpha.dm_ownr-bob-" + OTHER_UID,
                            "other-acl", "$KV.cotal_acl_alpha.ownr.bob." + OTHER_UID), Map.of());
            h.check("retirement-requester", h.mint(CredentialProfile.RETIREMENT_REQUESTER, INCARNATION), (c, x) -> {
                Subscription s = x.watch("cotal.alpha.ctl.lifecycle.>");
                c.publish("cotal.alpha.ctl.lifecycle.retire.ownr.bob." + UID, "{}".getBytes(StandardCharsets.UTF_8));
                MatrixHarness.received(s, "cotal.alpha.ctl.lifecycle.retire.ownr.bob." + UID);
            }, Set.of(), Map.of("retire-other", "cotal.alpha.ctl.lifecycle.retire.ownr.bob." + OTHER_UID), Map.of());
            assertEquals(Map.of(), h.failures(), "the broker's answers, per profile");
        }
    }

    private static final MintOptions INCARNATION_NO_UID = MintOptions.builder().owner("ownr").actor("bob").build();
}
