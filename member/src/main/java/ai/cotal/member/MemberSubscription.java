package ai.cotal.member;

/**
 * A subscription made through {@link MemberConnection#subscribe}: it is carried to the new
 * connection at every renewal before the old one lets it go, so the broker always holds it.
 * Thread-safe.
 */
public interface MemberSubscription {
    /** The subject subscribed to. */
    String subject();

    /** Ends the subscription on the current connection and stops carrying it over; idempotent. */
    void unsubscribe();
}
