package ai.cotal.member;

/**
 * The door a member's program joins a Cotal space through (SPEC §13.24):
 *
 * <pre>{@code
 * JoinOptions options = JoinOptions.builder(URI.create("https://auth.example.com"), "laptop",
 *         () -> myIdp.freshIdToken()).build();
 * try (MemberConnection member = CotalMember.connect(options)) {
 *     member.subscribe("cotal.space.chat.>", message -> handle(message));
 *     member.publish(subject, payload);
 * }
 * }</pre>
 *
 * It reads the join bundle at the public URL, exchanges an ID token for a bearer, connects to the
 * broker through the space's auth callout under the principal's inbox nonce, and renews the bearer
 * before it expires without a subscription ever leaving the broker. Thread-safe.
 */
public final class CotalMember {
    private CotalMember() {
    }

    /**
     * Joins the space and answers the connected member.
     *
     * @throws MemberException {@code unauthenticated} or {@code permission-denied} with the
     *     service's refusal when the ID token or the actor is refused; {@code unavailable} when the
     *     service or the broker cannot be reached
     */
    public static MemberConnection connect(JoinOptions options) {
        return MemberConnection.open(options);
    }
}
