package ai.cotal.testbroker.oidc;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: a test method (or constructor) that asks for an {@link OidcTestProvider}
 * gets one started with the defaults ({@link OidcTestProvider#OidcTestProvider()}), the same one
 * for every parameter of that test; it is closed after the test.
 *
 * <pre>{@code
 * @ExtendWith({NatsBrokerExtension.class, OidcTestProviderExtension.class})
 * class MyExchangeTest {
 *     @Test void exchanges(NatsBroker broker, OidcTestProvider idp) {
 *         IdpPin.pinOidc(stateDir, idp.issuer(), idp.clientId(), List.of());
 *         String idToken = idp.rs256("alice");
 *         ...
 *     }
 * }
 * }</pre>
 *
 * A test that needs another client id or token lifetime builds its own with
 * {@link OidcTestProvider#builder()}.
 */
public final class OidcTestProviderExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(OidcTestProviderExtension.class);

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public OidcTestProviderExtension() {
    }

    /** True for a parameter of type {@link OidcTestProvider}. */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == OidcTestProvider.class;
    }

    /** The test's provider, started on first request. */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NAMESPACE).getOrComputeIfAbsent(OidcTestProvider.class,
                key -> new OidcTestProvider(), OidcTestProvider.class);
    }

    /** Closes the test's provider, if one was started. */
    @Override
    public void afterEach(ExtensionContext context) {
        OidcTestProvider provider = context.getStore(NAMESPACE).remove(OidcTestProvider.class, OidcTestProvider.class);
        if (provider != null) {
            provider.close();
        }
    }
}
