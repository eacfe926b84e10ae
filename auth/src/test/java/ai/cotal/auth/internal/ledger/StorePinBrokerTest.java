package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store's IdP pin row {@code ledger.idp} (SPEC §13.23): its encoding, a move's delete, a corrupt
 * pin, and the same provider's algorithm re-pin of SPEC §13.14 as on files.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StorePinBrokerTest {
    @Test
    void aPinIsOneCreateOnlyRowReadBackAndAfterADeleteIsCreatedAgain(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            IdpPin pin = ledger.pinStock("https://idp.example.com");
            String stored = new String(store.kv.get("ledger.idp").getValue(), StandardCharsets.UTF_8);
            assertTrue(stored.contains("\"kind\":\"stock\"") && stored.contains("\"ver\":1"), stored);
            long after = store.lastSequence();
            assertEquals(pin, ledger.pinStock("https://idp.example.com"));
            assertEquals(after, store.lastSequence(), "the same provider again writes nothing");
            store.kv.delete("ledger.idp"); // as a move's removePin would
            assertEquals(Optional.empty(), ledger.idpPin(), "a delete reads as no pin");
            IdpPin other = ledger.pinStock("https://other.example.com");
            assertEquals(Optional.of(other), ledger.idpPin(), "created at the delete's revision");
        }
    }

    @Test
    void aCorruptPinIsDataLossNamingItsKey(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            for (String bad : new String[] {"{\"ver\":1,\"kind\":\"stock\",\"url\":\"https://a.example\",\"issuer\":"
                    + "\"https://b.example\",\"audience\":\"https://a.example\",\"jwksUri\":\"https://a.example/jwks\"}",
                    "{\"ver\":1,\"url\":\"https://a.example\",\"issuer\":\"https://a.example\",\"audience\":"
                    + "\"https://a.example\",\"jwksUri\":\"https://a.example/jwks\"}", "{\"ver\":2}", "not json"}) {
                store.kv.put("ledger.idp", bad.getBytes(StandardCharsets.UTF_8));
                CotalException e = assertThrows(CotalException.class, ledger::idpPin, bad);
                assertEquals(ErrorCode.DATA_LOSS, e.code());
                assertTrue(e.getMessage().startsWith("ledger.idp is invalid: "), e.getMessage());
                CotalException pin = assertThrows(CotalException.class, () -> ledger.pinStock("https://a.example"));
                assertEquals(ErrorCode.DATA_LOSS, pin.code(), "no pin rewrites what it cannot read");
            }
        }
    }

    @Test
    void theSameProviderWithAnotherAlgorithmListRePinsAndAnEmptyListKeepsThePins(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers); OidcTestProvider idp = new OidcTestProvider()) {
            StoreActorLedger ledger = store.ledger();
            IdpPin first = ledger.pinOidc(idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("RS256"));
            IdpPin repinned = ledger.pinOidc(idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("ES256"));
            assertEquals(List.of("ES256"), repinned.algorithms());
            assertEquals(first.jwksUri(), repinned.jwksUri(), "the same provider: only its algorithms change");
            assertEquals(Optional.of(repinned), ledger.idpPin(), "written to ledger.idp");
            long after = store.lastSequence();
            assertEquals(repinned, ledger.pinOidc(idp.issuer(), OidcTestProvider.CLIENT_ID, List.of()), "none keeps the pin's");
            assertEquals(after, store.lastSequence(), "keeping writes nothing");
            CotalException other = assertThrows(CotalException.class,
                    () -> ledger.pinOidc(idp.issuer(), "another-client", List.of()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, other.code());
            assertTrue(other.getMessage().endsWith("re-pinning to another identity provider is refused"), other.getMessage());
        }
    }
}
