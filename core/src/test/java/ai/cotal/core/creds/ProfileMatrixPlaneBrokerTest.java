package ai.cotal.core.creds;

import static ai.cotal.core.creds.ProfileMatrixSpaceBrokerTest.put;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Message;
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
 * The permission matrix (SPEC §3.5), endpoint-plane, run, session and manager family: each
 * pinned profile reaches its own run, instance or session and the broker refuses a sibling's;
 * serving profiles answer requests through their response permission only.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ProfileMatrixPlaneBrokerTest {
    private static MintOptions pinned(String pin) {
        return pin == null ? MintOptions.builder().owner("ownr").actor("bob").build()
                : MintOptions.builder().owner("ownr").actor("bob").pin(pin).build();
    }

    /** The credential on {@code c} answers a request the unrestricted client sends on {@code subject}. */
    private static void answers(Connection c, MatrixHarness h, String serve, String subject) throws Exception {
        c.createDispatcher(m -> c.publish(m.getReplyTo(), "ok".getBytes(StandardCharsets.UTF_8))).subscribe(serve);
        c.flush(Duration.ofSeconds(5));
        Message reply = h.admin.request(subject, new byte[0], Duration.ofSeconds(5));
        assertEquals("ok", new String(reply.getData(), StandardCharsets.UTF_8));
    }

    @Test
    void everyPlaneProfileDoesItsJobAndNothingElse(NatsBrokers brokers) throws Exception {
        try (MatrixHarness h = new MatrixHarness(brokers)) {
            h.admin.jetStreamManagement().addOrUpdateConsumer("EPW_alpha", ConsumerConfiguration.builder().durable("ep_i2")
                    .filterSubject("cotal.alpha.epw.i2.>").build());
            h.check("run-driver", h.mint(CredentialProfile.RUN_DRIVER, pinned("run1")),
                    (c, x) -> put(c, "cotal.alpha.epj.run1.job"), Set.of(),
                    Map.of("other-run", "cotal.alpha.epj.run2.job", "results", "cotal.alpha.epr.run1.x"), Map.of());
            h.check("run-mediator", h.mint(CredentialProfile.RUN_MEDIATOR, pinned("run1")), (c, x) -> {
                put(c, "cotal.alpha.epr.run1.result");
                put(c, "cotal.alpha.epe.run1.event");
            }, Set.of(), Map.of("other-run", "cotal.alpha.epr.run2.x", "jobs", "cotal.alpha.epj.run1.job"), Map.of());
            h.check("run-operator", h.mint(CredentialProfile.RUN_OPERATOR, pinned("run1")), (c, x) -> {
                Subscription s = x.watch("cotal.alpha.ctl.run.>");
                c.publish("cotal.alpha.ctl.run.run1.cancel", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.ctl.run.run1.cancel");
            }, Set.of(), Map.of("other-run", "cotal.alpha.ctl.run.run2.cancel"), Map.of());
            h.check("run-admitter", h.mint(CredentialProfile.RUN_ADMITTER, pinned("run1")),
                    (c, x) -> put(c, "$KV.cotal_admission_alpha.run.run1"), Set.of(),
                    Map.of("endpoint-admission", "$KV.cotal_admission_alpha.service-endpoints"), Map.of());
            h.check("endpoint-serve-executor", h.mint(CredentialProfile.ENDPOINT_SERVE_EXECUTOR, pinned("i1")),
                    (c, x) -> c.jetStreamManagement().addOrUpdateConsumer("EPW_alpha", ConsumerConfiguration.builder()
                            .durable("ep_i1").filterSubject("cotal.alpha.epw.i1.>").build()), Set.of(),
                    Map.of("other-instance", "$JS.API.CONSUMER.DURABLE.CREATE.EPW_alpha.ep_i9"), Map.of());
            h.check("endpoint-evictor", h.mint(CredentialProfile.ENDPOINT_EVICTOR, pinned("i2")),
                    (c, x) -> assertEquals(true, c.jetStreamManagement().deleteConsumer("EPW_alpha", "ep_i2")), Set.of(),
                    Map.of("other-instance", "$JS.API.CONSUMER.DELETE.EPW_alpha.ep_i1"), Map.of());
            h.check("remote-manager", h.mint(CredentialProfile.REMOTE_MANAGER, pinned("mgr1")), (c, x) -> {
                put(c, "$KV.cotal_manager_alpha.lease.mgr1");
                answers(c, x, "cotal.alpha.svc.manager.ownr.>", "cotal.alpha.svc.manager.ownr.status");
            }, Set.of(), Map.of("own-command", "cotal.alpha.svc.manager.ownr.status"),
                    Map.of("other-owner", "cotal.alpha.svc.manager.someone.>"));
            h.check("goal-writer", h.mint(CredentialProfile.GOAL_WRITER, pinned(null)),
                    (c, x) -> put(c, "cotal.alpha.epf.goal.ownr.bob.g1"), Set.of(),
                    Map.of("other-goal", "cotal.alpha.epf.goal.ownr.alice.g1"), Map.of());
            h.check("session-ledger", h.mint(CredentialProfile.SESSION_LEDGER, pinned(null)),
                    (c, x) -> put(c, "cotal.alpha.wfj.session.ownr.s1"), Set.of(),
                    Map.of("other-owner", "cotal.alpha.wfj.session.someone.s1"), Map.of());
            h.check("session-caller", h.mint(CredentialProfile.SESSION_CALLER, pinned("s1")), (c, x) -> {
                Subscription s = x.watch("cotal.alpha.svc.session.>");
                c.publish("cotal.alpha.svc.session.ownr.s1.run", new byte[0]);
                MatrixHarness.received(s, "cotal.alpha.svc.session.ownr.s1.run");
            }, Set.of(), Map.of("other-session", "cotal.alpha.svc.session.ownr.s2.run"), Map.of());
            h.check("session-serving", h.mint(CredentialProfile.SESSION_SERVING, pinned("s1")),
                    (c, x) -> answers(c, x, "cotal.alpha.svc.session.ownr.s1.>", "cotal.alpha.svc.session.ownr.s1.run"),
                    Set.of(), Map.of("unsolicited-reply", "_INBOX_someoneelse.x"),
                    Map.of("other-session", "cotal.alpha.svc.session.ownr.s2.>"));
            h.check("deployer", h.mint(CredentialProfile.DEPLOYER, MintOptions.defaults()),
                    (c, x) -> put(c, "cotal.alpha.epc.contract1"), Set.of("artifact-write"),
                    Map.of("delete-artifacts", "$JS.API.STREAM.DELETE.OBJ_cotal_artifacts_alpha"), Map.of());
            Identity serve = Identity.create();
            h.check("endpoint-serve", EndpointServeMint.mint(h.auth.strip(), serve, "tok", pinned("i1")),
                    (c, x) -> answers(c, x, "cotal.alpha.svc.ep.tok.i1.>", "cotal.alpha.svc.ep.tok.i1.cap"), Set.of(),
                    Map.of("unsolicited-reply", "_INBOX_someoneelse.x"),
                    Map.of("other-instance", "cotal.alpha.svc.ep.tok.i9.>"));
            String remoteKey = Identity.create().id();
            String remoteJwt = Creds.mintPublicUserJwt(h.auth.strip(), remoteKey, CredentialProfile.REMOTE_MANAGER,
                    MintOptions.builder().owner("ownr").pin("mgr1").expiresInSeconds(600).build());
            assertEquals(remoteKey, ai.cotal.core.jwt.NatsJwt.decode(remoteJwt).sub());
            assertEquals(Map.of(), h.failures(), "the broker's answers, per profile");
        }
    }
}
