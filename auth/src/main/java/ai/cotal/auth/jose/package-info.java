/**
 * JOSE building blocks the SDK signs and verifies with, published so that an embedder's own
 * identity provider (or its tests) can use the same Ed25519 signatures: a Nimbus
 * {@link com.nimbusds.jose.JWSSigner} and {@link com.nimbusds.jose.JWSVerifier} pair over Bouncy
 * Castle.
 */
package ai.cotal.auth.jose;
