/**
 * The authority plane of a Cotal space: the plane claim and fatal latch, the actor ledger, the IdP
 * pin, bearers, the auth callout, the token exchange and the service-endpoint engine. See SPEC.md.
 */
package ai.cotal.auth;
