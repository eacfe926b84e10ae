package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimType;
import ai.cotal.core.jwt.NatsClaim;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.id.SpaceName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The signer's judgement of one signing request (SPEC §16.2): form, issuer, fence, profile,
 * lifetime, in that order; the first failure is the answer. Immutable and thread-safe.
 */
final class PolicyCheck {
    /**
     * What the signer decided: {@code claims} when the input decoded, {@code profile} when it is
     * signed, {@code refusal} when it is not.
     */
    record Verdict(ClaimSet<NatsClaim> claims, SignerProfile profile, CotalException refusal) {
        boolean signed() {
            return refusal == null;
        }
    }

    private final SignerPolicy policy;
    private final String signingKey;
    private final String prefix;
    private final Catalogue catalogue;

    PolicyCheck(SignerPolicy policy, String signingKey) {
        this.policy = policy;
        this.signingKey = signingKey;
        this.prefix = new SpaceName(policy.space()).subjectPrefix();
        this.catalogue = Catalogue.of(policy.space());
    }

    Verdict judge(String signingInput, Instant now) {
        ClaimSet<NatsClaim> claims;
        try {
            claims = NatsJwt.decodeSigningInput(signingInput);
        } catch (CotalException e) {
            return new Verdict(null, null, new CotalException(ErrorCode.BAD_REQUEST, e.getMessage()));
        }
        if (claims.type() != ClaimType.USER) {
            return new Verdict(claims, null, CotalException.badRequest("jwt.claims.nats.type",
                    "the signer signs user JWTs only, not " + claims.type().wire()));
        }
        try {
            UserClaim user = (UserClaim) claims.nats();
            checkIssuer(claims, user);
            checkFence("pub", user.pub());
            checkFence("sub", user.sub());
            if (Boolean.TRUE.equals(user.bearerToken())) {
                throw denied("bearer_token: a bearer JWT connects without the user's key; never signed");
            }
            return new Verdict(claims, profile(claims, user, now), null);
        } catch (CotalException e) {
            return new Verdict(claims, null, e);
        }
    }

    private void checkIssuer(ClaimSet<NatsClaim> claims, UserClaim user) {
        if (!signingKey.equals(claims.iss())) {
            throw denied("iss: not this signer's signing key " + signingKey);
        }
        String account = user.issuerAccount();
        boolean own = signingKey.equals(policy.account());
        if (account == null ? !own : !account.equals(policy.account())) {
            throw denied("issuer_account: this signer serves account " + policy.account() + " only");
        }
    }

    private void checkFence(String side, Permission permission) {
        List<String> allow = permission == null || permission.allow() == null ? List.of() : permission.allow();
        if (allow.isEmpty()) {
            if (permission == null || permission.deny() == null || !permission.deny().contains(">")) {
                throw denied(side + ": no allow list grants every subject the deny list leaves; it must deny >");
            }
            return;
        }
        for (int i = 0; i < allow.size(); i++) {
            String subject = allow.get(i);
            String field = side + ".allow[" + i + "]";
            if (!Subjects.valid(subject)) {
                throw denied(field + ": not a subject");
            }
            if (Subjects.intersects(subject, "$SYS.>")) {
                throw denied(field + ": " + Subjects.shown(subject) + " reaches $SYS.>, which is never granted");
            }
            if (Subjects.reachesAnotherSpace(subject, prefix)) {
                throw denied(field + ": " + Subjects.shown(subject) + " reaches another space's prefix (only " + prefix
                        + ".> is this space's)");
            }
            for (String forbidden : policy.forbiddenSubjects()) {
                if (Subjects.intersects(subject, forbidden)) {
                    throw denied(field + ": " + Subjects.shown(subject) + " reaches the forbidden subject " + forbidden);
                }
            }
        }
    }

    private SignerProfile profile(ClaimSet<NatsClaim> claims, UserClaim user, Instant now) {
        Map<String, String> bound = new HashMap<>();
        bound.put("user", claims.sub());
        if (user.tags() != null) {
            for (String tag : user.tags()) {
                if (tag.startsWith("owner:")) {
                    bound.putIfAbsent("owner", tag.substring("owner:".length()));
                } else if (tag.startsWith("actor:")) {
                    bound.putIfAbsent("actor", tag.substring("actor:".length()));
                }
            }
        }
        // the common case first: the policy's profiles in catalogue order, the first that covers and admits wins
        for (Catalogue.Shape shape : catalogue.shapes()) {
            SignerPolicy.Bound limit = policy.profiles().get(shape.profile());
            if (limit != null && miss(shape, user, bound) == null && lifetime(claims, shape.profile(), limit, now) == null) {
                return shape.profile();
            }
        }
        throw refusal(claims, user, bound, now);
    }

    /** Why no profile of the policy admits the claim: no shape covers it, none listed does, or a lifetime. */
    private CotalException refusal(ClaimSet<NatsClaim> claims, UserClaim user, Map<String, String> bound, Instant now) {
        List<SignerProfile> covering = new ArrayList<>();
        String unmatched = null;
        for (Catalogue.Shape shape : catalogue.shapes()) {
            String miss = miss(shape, user, bound);
            if (miss == null) {
                covering.add(shape.profile());
            } else if (unmatched == null) {
                unmatched = miss;
            }
        }
        if (covering.isEmpty()) {
            return denied("permissions: match no profile of this signer (" + unmatched + ")");
        }
        for (SignerProfile profile : covering) {
            SignerPolicy.Bound limit = policy.profiles().get(profile);
            CotalException late = limit == null ? null : lifetime(claims, profile, limit, now);
            if (late != null) {
                return late;
            }
        }
        return denied("profile: " + covering.get(0).label() + " is not in this signer's policy");
    }

    /** Null when {@code shape} covers the claim, else the first grant it does not cover. */
    private static String miss(Catalogue.Shape shape, UserClaim user, Map<String, String> bound) {
        Map<String, String> bindings = bound;
        for (String side : List.of("pub", "sub")) {
            Permission permission = side.equals("pub") ? user.pub() : user.sub();
            List<String> allow = permission.allow() == null ? List.of() : permission.allow();
            List<SubjectTemplate> templates = side.equals("pub") ? shape.publish() : shape.subscribe();
            for (int i = 0; i < allow.size(); i++) {
                Map<String, String> next = null;
                for (SubjectTemplate template : templates) {
                    next = template.match(allow.get(i), bindings);
                    if (next != null) {
                        break;
                    }
                }
                if (next == null) {
                    return side + ".allow[" + i + "] " + Subjects.shown(allow.get(i));
                }
                bindings = next;
            }
        }
        if (user.resp() != null && (user.resp().max() < 1 || user.resp().max() > shape.replies()
                || user.resp().ttl() != 0)) {
            return "resp";
        }
        return null;
    }

    private CotalException lifetime(ClaimSet<NatsClaim> claims, SignerProfile profile, SignerPolicy.Bound limit,
            Instant now) {
        long skew = policy.maxClockSkew().toSeconds();
        if (Math.abs(claims.iat() - now.getEpochSecond()) > skew) {
            return denied("iat: more than " + skew + " s from the signer's clock");
        }
        if (claims.exp() == null) {
            return limit.withoutExpiry() ? null : denied("exp: missing; profile " + profile.label()
                    + " needs a bounded lifetime");
        }
        long lifetime = claims.exp() - now.getEpochSecond();
        if (lifetime > limit.maxLifetimeSeconds()) {
            return denied("exp: a lifetime of " + lifetime + " s exceeds the bound of " + limit.maxLifetimeSeconds()
                    + " s of profile " + profile.label());
        }
        return null;
    }

    private static CotalException denied(String reason) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, reason);
    }
}
