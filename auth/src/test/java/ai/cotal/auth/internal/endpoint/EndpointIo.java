package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The broker I/O one host invocation cannot do without, and nothing else, for the endpoint
 * scenario: its key reads on the host's discovery connection in the same round trips, the plane
 * claim's read while a connect with a fresh JWT scoped to the written keys opens (the engine's
 * dial and pools), the create-only writes of a record-sized value one after the other, and the
 * close off the caller's thread. No plan, no rows, no ledger, budget or answer.
 */
public final class EndpointIo implements AutoCloseable {
    private static final byte[] RECORD = ("{\"v\":1,\"requestId\":\"bench-request-000000000001\",\"kind\":\"register\","
            + "\"requestDigest\":\"sha256:" + "c".repeat(64) + "\",\"operationId\":\"abcdefghijklmnopqrstuvwxyz\","
            + "\"granter\":\"owner:u_abcdefghijklmnopqrstuvwxyz\"}").getBytes(StandardCharsets.UTF_8);

    private final Discovery discovery;
    private final EffectConnection.Dial dial;
    private final EffectConnection.Pools pools;
    private final AtomicLong ids = new AtomicLong(System.nanoTime());

    /** On {@code plane}'s discovery connection; effect connections to {@code server} as {@code signer}'s data account. */
    public EndpointIo(AuthAuthorityPlane plane, SpaceSigner signer, String server) {
        this.discovery = ((AuthorityPlaneImpl) plane).serviceEndpointEngine().discovery();
        this.dial = new EffectConnection.Dial(java.util.List.of(server), signer, null, StoreNames.bucket("auth", signer.space()),
                NKeyPair.create(KeyType.USER));
        this.pools = EffectConnection.Pools.create(signer.space());
    }

    /** A register's I/O: three reads in one round trip while the connect opens, the claim's read, five writes. */
    public void register() {
        run(new int[] {3}, true, 5);
    }

    /** A decide's I/O: four reads, then three, the claim's read while the connect opens, eight writes (SPEC §13.1: bind, approval, gate, assignment, proposal, register operation, its own operation, release). */
    public void decide() {
        run(new int[] {4, 3}, false, 8);
    }

    private void run(int[] rounds, boolean connectDuringReads, int writes) {
        long id = ids.incrementAndGet();
        Set<String> scope = new LinkedHashSet<>();
        for (int i = 0; i < writes; i++) {
            scope.add("svc.bench." + id + ".w" + i);
        }
        CompletableFuture<EffectConnection> connect = connectDuringReads ? connect(scope) : null;
        for (int round = 0; round < rounds.length; round++) {
            Snapshot s = new Snapshot(discovery);
            String[] keys = new String[rounds[round]];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = "svc.bench." + id + ".r" + round + "." + i;
            }
            s.send(keys);
            for (String key : keys) {
                s.seen(key);
            }
        }
        if (connect == null) {
            connect = connect(scope);
        }
        discovery.read("svc.bench." + id + ".claim");
        EffectConnection effect = connect.join();
        try {
            for (String key : scope) {
                if (effect.publish(key, RECORD, 0).isEmpty()) {
                    throw new IllegalStateException(key + " existed");
                }
            }
        } finally {
            pools.executor().execute(effect::close);
        }
    }

    private CompletableFuture<EffectConnection> connect(Set<String> scope) {
        Instant now = Instant.now();
        return CompletableFuture.supplyAsync(() -> EffectConnection.open(dial, pools, scope, now, now.plusSeconds(30)),
                pools.executor());
    }

    @Override
    public void close() {
        pools.close();
    }
}
