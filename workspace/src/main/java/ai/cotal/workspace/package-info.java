/**
 * Root-relative state of a Cotal installation: the file-backed {@code SecretStore}, per-space
 * secret keys, persisted trust records and the broker policy. See SPEC.md.
 */
package ai.cotal.workspace;
