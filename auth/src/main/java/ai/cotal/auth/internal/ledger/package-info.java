/**
 * The actor ledger's placements behind one internal SPI (SPEC §13.23): {@link
 * ai.cotal.auth.internal.ledger.LedgerReads} (what a connect check reads), {@link
 * ai.cotal.auth.internal.ledger.LedgerBackend} (the plane's writes and pins) and the store
 * placement's rows, {@link ai.cotal.auth.internal.ledger.StoreActorLedger}. Not exported.
 */
package ai.cotal.auth.internal.ledger;
