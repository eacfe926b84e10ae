package ai.cotal.testbroker.oidc;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: a test method (or constructor, or {@code @BeforeAll} method) that asks for a
 * {@link KeycloakServer} gets the one shared by the whole test run, started on the first request
 * and stopped when the run ends, so a suite pays Keycloak's start once:
 *
 * <pre>{@code
 * @ExtendWith(KeycloakExtension.class)
 * class MySignInTest {
 *     @Test void signsIn(KeycloakServer keycloak) {
 *         KeycloakRealm realm = keycloak.realm("my-test-realm");
 *         ...
 *     }
 * }
 * }</pre>
 *
 * Tests share the server, not the realms: each test makes the realm it needs, under a name of its own.
 */
public final class KeycloakExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KeycloakExtension.class);

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public KeycloakExtension() {
    }

    /** True for a parameter of type {@link KeycloakServer}. */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KeycloakServer.class;
    }

    /** The run's server, started on first request. */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Shared.class, key -> new Shared(),
                Shared.class).server;
    }

    /** Closed by JUnit when the root context (the test run) closes. */
    private static final class Shared implements AutoCloseable {
        final KeycloakServer server = KeycloakServer.start();

        @Override
        public void close() {
            server.close();
        }
    }
}
