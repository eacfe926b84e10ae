package ai.cotal.testbroker;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * JUnit 5 extension: a test method (or constructor) asks for a {@link NatsBroker} (started with
 * {@link NatsBroker#defaultConfig(NatsBroker)}) or for {@link NatsBrokers} (to start brokers from its own
 * configs). Every broker is closed after the test; when the test fails, each broker's log tail is
 * attached to the failure as a suppressed exception.
 *
 * <pre>{@code
 * @ExtendWith(NatsBrokerExtension.class)
 * class MyTest {
 *     @Test void works(NatsBroker broker) { ... broker.url() ... }
 * }
 * }</pre>
 */
public final class NatsBrokerExtension implements ParameterResolver, AfterEachCallback, TestExecutionExceptionHandler {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NatsBrokerExtension.class);
    private static final int TAIL_LINES = 60;

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == NatsBroker.class || type == NatsBrokers.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        NatsBrokers brokers = brokers(context);
        if (parameter.getParameter().getType() == NatsBrokers.class) {
            return brokers;
        }
        try {
            return brokers.start(NatsBroker::defaultConfig);
        } catch (BrokerException e) {
            throw new ParameterResolutionException(e.getMessage(), e);
        }
    }

    private static NatsBrokers brokers(ExtensionContext context) {
        return context.getStore(NAMESPACE).getOrComputeIfAbsent(NatsBrokers.class,
                key -> new NatsBrokers(BackendChoice.detect()), NatsBrokers.class);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        NatsBrokers brokers = context.getStore(NAMESPACE).get(NatsBrokers.class, NatsBrokers.class);
        if (brokers != null) {
            for (NatsBroker broker : brokers.started()) {
                failure.addSuppressed(new BrokerLogTail(broker + " log tail:\n" + broker.logTail(TAIL_LINES)));
            }
        }
        throw failure;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        NatsBrokers brokers = context.getStore(NAMESPACE).remove(NatsBrokers.class, NatsBrokers.class);
        if (brokers != null) {
            brokers.close();
        }
    }

    /** Carries a broker's log tail on a failed test; it has no stack of its own. */
    static final class BrokerLogTail extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BrokerLogTail(String message) {
            super(message, null, false, false);
        }
    }
}
