/**
 * The member connector of a Cotal space (SPEC §13.24): {@link ai.cotal.member.CotalMember} joins
 * a space from its public URL and an ID-token supplier, and the {@link
 * ai.cotal.member.MemberConnection} it answers renews its bearer before it expires without a
 * subscription ever leaving the broker.
 *
 * <p>This module reads jnats and the JDK only.
 */
// jnats 2.26 ships an Automatic-Module-Name but no descriptor; it signs nonces with BouncyCastle.
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module ai.cotal.member {
    requires transitive io.nats.jnats;
    requires org.bouncycastle.provider;
    requires java.net.http;

    exports ai.cotal.member;
}
