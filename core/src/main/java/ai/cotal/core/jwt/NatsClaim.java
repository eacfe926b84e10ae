package ai.cotal.core.jwt;

/**
 * The {@code nats} body of a NATS JWT v2. Each implementation is one claim type; the codec adds
 * {@code type} and {@code version: 2} on the wire and refuses any type not listed here
 * (activation tokens are not supported).
 */
public sealed interface NatsClaim permits OperatorClaim, AccountClaim, UserClaim, GenericClaim,
        AuthorizationRequestClaim, AuthorizationResponseClaim {
    /** The wire {@code type} of this claim. */
    ClaimType claimType();
}
