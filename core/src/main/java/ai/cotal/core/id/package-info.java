/**
 * The identifiers of a Cotal space (SPEC §1.1): {@link ai.cotal.core.id.Owner},
 * {@link ai.cotal.core.id.Actor} and the {@link ai.cotal.core.id.Principal} they make,
 * {@link ai.cotal.core.id.LifecycleUid}, {@link ai.cotal.core.id.CredentialId},
 * {@link ai.cotal.core.id.InstanceId}, {@link ai.cotal.core.id.RunId} and
 * {@link ai.cotal.core.id.SpaceName}. Each is a record that checks its one rule when it is made
 * (a {@link ai.cotal.core.CotalException} {@code bad-request} naming the field otherwise), compares
 * by value and prints its canonical text, so a value of one of these types is valid wherever the
 * SDK accepts it. Every type of this package is immutable and thread-safe.
 */
package ai.cotal.core.id;
