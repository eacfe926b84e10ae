package ai.cotal.core.jwt;

import java.util.List;

/** A generic operator-signed claim, e.g. the account list of a {@code $SYS.REQ.CLAIMS.DELETE}. */
public record GenericClaim(List<String> accounts) implements NatsClaim {
    public GenericClaim {
        accounts = accounts == null ? null : List.copyOf(accounts);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.GENERIC;
    }
}
