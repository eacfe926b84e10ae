package ai.cotal.auth.service;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.file.Path;

/**
 * The plane options a stock service of one space runs on: the broker, the space, the state
 * directory and the secret store, with the signer and the callout account
 * {@link ServiceMaterial#forService} loads from that store (so a missing secret is refused here,
 * before any connection, as the embedder's own start would be).
 */
public final class StockPlane {
    private StockPlane() {
    }

    /** The plane options of {@code space} signing with the store's service keys. */
    public static AuthPlaneOptions.Builder options(String server, String space, Path stateDir, SecretStore store) {
        return options(server, space, stateDir, store, null);
    }

    /** The plane options of {@code space} signing through {@code remote} (a remote signer; null: the service keys). */
    public static AuthPlaneOptions.Builder options(String server, String space, Path stateDir, SecretStore store,
            SpaceSigner remote) {
        ServiceMaterial.Loaded material = ServiceMaterial.forService(store, space, remote);
        return AuthPlaneOptions.builder().server(server).space(space).stateDir(stateDir).secretStore(store)
                .signer(material.signer()).callout(material.callout());
    }
}
