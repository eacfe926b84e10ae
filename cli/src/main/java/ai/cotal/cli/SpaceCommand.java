package ai.cotal.cli;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.claims.AccountClaims;
import ai.cotal.core.claims.ClusterMembers;
import ai.cotal.core.claims.PushIncomplete;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.stores.DeliveryClass;
import ai.cotal.core.stores.IssuedStores;
import ai.cotal.core.stores.SpaceBackup;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.stores.SpaceTeardown;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code cotal-auth space add | list | retire | reinstate | teardown | backup | restore | recreate-issued}: the per-space
 * lifecycle of a root's tenants on a shared broker (SPEC §7.5). Arguments are checked first (exit
 * 2, nothing written); every record is read before anything is written or sent; a failure exits 1
 * with its code and reason, and nothing later in the command ran.
 */
final class SpaceCommand {
    private static final String USAGE = "usage: cotal-auth space add --root DIR --space NAME [--server URL"
            + " [--delivery-class live|durable]]\n"
            + "       cotal-auth space list --root DIR [--server URL]\n"
            + "       cotal-auth space (retire | reinstate | teardown) --root DIR --space NAME --server URL\n"
            + "       cotal-auth space backup --root DIR --space NAME --server URL --to DIR\n"
            + "       cotal-auth space restore --root DIR --space NAME --server URL --from DIR\n"
            + "       cotal-auth space recreate-issued --root DIR --space NAME --server URL --to DIR";
    private static final Duration PUSH_WAIT = Duration.ofSeconds(5);
    /** The columns every tenant table starts with: space, account, state. */
    private static final String ROW = "| %-16s | %-56s | %-10s | %s%n";

    private SpaceCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err, Clock clock) {
        if (args.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        String verb = args.get(0);
        List<String> rest = args.subList(1, args.size());
        Flags flags;
        try {
            flags = switch (verb) {
                case "add" -> Flags.parse(rest, Set.of("--root", "--space", "--server", "--delivery-class"),
                        Set.of("--root", "--space"));
                case "list" -> Flags.parse(rest, Set.of("--root", "--server"), Set.of("--root"));
                case "retire", "reinstate", "teardown" -> Flags.parse(rest, Set.of("--root", "--space", "--server"),
                        Set.of("--root", "--space", "--server"));
                case "backup", "recreate-issued" -> Flags.parse(rest, Set.of("--root", "--space", "--server", "--to"),
                        Set.of("--root", "--space", "--server", "--to"));
                case "restore" -> Flags.parse(rest, Set.of("--root", "--space", "--server", "--from"),
                        Set.of("--root", "--space", "--server", "--from"));
                default -> throw new IllegalArgumentException("unknown space command " + verb);
            };
            flags.optional("--space").ifPresent(space -> SpaceName.of(space, "space").value());
            if (flags.optional("--delivery-class").isPresent() && flags.optional("--server").isEmpty()) {
                throw new IllegalArgumentException("--delivery-class needs --server: the class is written when the space"
                        + " is provisioned");
            }
            flags.optional("--delivery-class").ifPresent(c -> DeliveryClass.parse(c, "delivery-class"));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (CotalException e) {
            err.println("cotal-auth space " + verb + ": " + e.code().wire() + ": " + e.getMessage() + "; nothing was written");
            return 2;
        }
        Tenants tenants = new Tenants(Path.of(flags.get("--root")), clock);
        try {
            return switch (verb) {
                case "add" -> add(tenants, flags.get("--space"), flags.optional("--server"),
                        flags.optional("--delivery-class").map(c -> DeliveryClass.parse(c, "delivery-class")), out, clock);
                case "list" -> list(tenants, flags.optional("--server"), out, clock);
                case "retire", "reinstate" -> retire(tenants, flags.get("--space"), flags.get("--server"),
                        verb.equals("retire"), out, clock);
                case "teardown" -> teardown(tenants, flags.get("--space"), flags.get("--server"), out, clock);
                case "backup" -> backup(tenants, flags.get("--space"), flags.get("--server"), Path.of(flags.get("--to")), out);
                case "recreate-issued" -> recreateIssued(tenants, flags.get("--space"), flags.get("--server"),
                        Path.of(flags.get("--to")), out);
                default -> restore(tenants, flags.get("--space"), flags.get("--server"), Path.of(flags.get("--from")), out);
            };
        } catch (CotalException e) {
            err.println("cotal-auth space " + verb + ": " + e.code().wire() + ": " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("cotal-auth space " + verb + ": " + e.getMessage());
            return 1;
        }
    }

    private static int add(Tenants tenants, String space, Optional<String> server, Optional<DeliveryClass> given,
            PrintStream out, Clock clock) {
        BrokerAuth broker = tenants.ensureBroker();
        Tenants.Tenant tenant = tenants.add(space, broker);
        if (tenant.retired()) {
            throw CotalException.failedPrecondition("space '" + space + "' is retired: reinstate it");
        }
        String pushed = "-";
        String streams = "-";
        String delivery = "-";
        if (server.isPresent()) {
            pushed = push(tenants, server.get(), List.of(tenant.account().jwt(), tenant.callout().jwt()), clock);
            String[] done = withSpace(tenants, tenant, server.get(), CredentialProfile.PROVISIONER, "provisioner",
                    connection -> provision(connection, space, given));
            streams = done[0];
            delivery = done[1];
        }
        header(out, String.format("%-56s | %-22s | %s", "pushed to", "streams", "delivery class"));
        out.printf(ROW, space, tenant.account().accountPublicKey(), "live", String.format("%-56s | %-22s | %s", pushed,
                streams, delivery));
        if (server.isEmpty()) {
            out.println("recorded; run `cotal-auth up`, start the broker, then add it again with --server to provision it");
        }
        return 0;
    }

    /**
     * {@code SpaceStores.setup}, then the space's default delivery class (SPEC §4: written once,
     * {@code given} or {@code live}); a default already stored is kept, and one other than an
     * explicitly given class is refused ({@code failed-precondition}). Returns the streams and
     * class columns.
     */
    private static String[] provision(Connection connection, String space, Optional<DeliveryClass> given) {
        List<String> created = SpaceStores.setup(connection, space);
        boolean wrote = DeliveryClass.ensureDefault(connection, space, given.orElse(DeliveryClass.LIVE));
        DeliveryClass stored = DeliveryClass.readDefault(connection, space).orElseThrow(() -> new CotalException(
                ErrorCode.DATA_LOSS, "space '" + space + "': the default delivery class was written and is gone"));
        if (given.isPresent() && stored != given.get()) {
            throw CotalException.failedPrecondition("space '" + space + "' records the delivery class " + stored.wire()
                    + "; a space's default delivery class is never changed");
        }
        return new String[] {created.size() + " (SpaceStores.setup)", stored.wire() + (wrote ? " (written)" : " (kept)")};
    }

    private static int list(Tenants tenants, Optional<String> server, PrintStream out, Clock clock) {
        List<Tenants.Tenant> all = tenants.read();
        Map<String, String> held = server.isPresent() ? held(tenants, server.get(), all, clock) : Map.of();
        header(out, "broker");
        boolean unreadable = false;
        for (Tenants.Tenant tenant : all) {
            if (!tenant.readable()) {
                unreadable = true;
                out.printf(ROW, tenant.space(), "-", "unreadable", tenant.problem());
                continue;
            }
            out.printf(ROW, tenant.space(), tenant.account().accountPublicKey(), tenant.retired() ? "retired" : "live",
                    held.getOrDefault(tenant.space(), "-"));
        }
        return unreadable ? 1 : 0;
    }

    private static int retire(Tenants tenants, String space, String server, boolean retire, PrintStream out, Clock clock) {
        Tenants.Tenant tenant = tenants.require(space);
        if (tenant.retired() != retire) {
            long now = clock.instant().getEpochSecond();
            String claim = retire ? AccountClaims.retire(tenants.broker(), tenant.account().jwt(), now)
                    : AccountClaims.reinstate(tenants.broker(), tenant.account().jwt(), now);
            tenant = tenants.store(tenant, claim);
        }
        String pushed = push(tenants, server, List.of(tenant.account().jwt()), clock);
        header(out, "pushed to");
        out.printf(ROW, space, tenant.account().accountPublicKey(), retire ? "retired" : "live", pushed);
        out.println(retire ? "its connections are closed and new ones refused; its streams stay"
                : "connections are admitted again; credentials issued before the retirement stay refused");
        return 0;
    }

    /**
     * Deletes every stream of a retired space with {@code SpaceTeardown.tearDown} (SPEC §5.2
     * "Teardown"): the window pushed, the streams deleted with a one-shot {@code teardown}
     * credential, then a new retirement stored in the tenant record and pushed. A live space is
     * refused before anything is sent; running it again finishes an interrupted run.
     */
    private static int teardown(Tenants tenants, String space, String server, PrintStream out, Clock clock) {
        Tenants.Tenant tenant = tenants.require(space);
        SpaceTeardown.Outcome outcome = withClaims(tenants, server, clock, claimsApi -> {
            try {
                return SpaceTeardown.tearDown(claimsApi, claimsApi.members(PUSH_WAIT),
                        new SpaceAuth(tenants.broker(), tenant.account()), creds -> NatsConnector.builder().server(server)
                                .creds(creds).label("cotal-auth:teardown:" + space).build().connect(),
                        retired -> tenants.store(tenant, retired), PUSH_WAIT);
            } catch (PushIncomplete e) {
                throw again(e);
            }
        });
        out.println("| stream");
        out.println("|" + "-".repeat(36));
        outcome.deleted().forEach(stream -> out.println("| " + stream));
        out.println("space '" + space + "' torn down: " + outcome.deleted().size() + " streams deleted; it stays retired"
                + " (its tenant record and account claim remain)");
        return 0;
    }

    private static int backup(Tenants tenants, String space, String server, Path to, PrintStream out) {
        Tenants.Tenant tenant = live(tenants.require(space));
        SpaceBackup.Backup backup = withSpace(tenants, tenant, server, CredentialProfile.BACKUP, "backup",
                connection -> SpaceBackup.backup(connection, space, to));
        out.printf("| %-34s | %10s | %10s%n", "stream", "messages", "last seq");
        out.printf("|%s|%s|%s%n", "-".repeat(36), "-".repeat(12), "-".repeat(11));
        backup.streams().forEach((stream, counts) -> out.printf("| %-34s | %10d | %10d%n", stream, counts.messages(),
                counts.lastSeq()));
        out.println("space '" + space + "' backed up to " + to.toAbsolutePath() + " (" + backup.streams().size() + " streams)");
        return 0;
    }

    /**
     * The recreation of SPEC §13.15: {@code IssuedStores.recreate} with a one-shot
     * {@code issued-store-recreate} credential (backs up, checks, deletes the pre-retention issued
     * and accepted stores), then {@code SpaceStores.setup} with a {@code provisioner} one, which
     * creates them again in the current shape. Refused before anything is written when neither
     * store predates bounded retention or {@code --to} exists; a failed check deletes nothing.
     * Running it again after the delete (setup not yet run) refuses, nothing to recreate: run
     * {@code space add --server} to finish.
     */
    private static int recreateIssued(Tenants tenants, String space, String server, Path to, PrintStream out) {
        Tenants.Tenant tenant = live(tenants.require(space));
        IssuedStores.Recreation recreation = withSpace(tenants, tenant, server, CredentialProfile.ISSUED_STORE_RECREATE,
                "issued-store-recreate", connection -> IssuedStores.recreate(connection, space, to));
        withSpace(tenants, tenant, server, CredentialProfile.PROVISIONER, "provisioner",
                connection -> SpaceStores.setup(connection, space));
        out.printf("| %-34s | %s%n", "stream", "backup");
        out.printf("|%s|%s%n", "-".repeat(36), "-".repeat(40));
        recreation.backups().forEach((stream, dir) -> out.printf("| %-34s | %s%n", stream, dir.toAbsolutePath()));
        out.println("space '" + space + "': " + recreation.backups().size() + " issued stores backed up, deleted and"
                + " created again in the current shape (SpaceStores.setup); restore one with IssuedStores.restore");
        return 0;
    }

    private static int restore(Tenants tenants, String space, String server, Path from, PrintStream out) {
        Tenants.Tenant tenant = live(tenants.require(space));
        List<String> restored = withSpace(tenants, tenant, server, CredentialProfile.RESTORE, "restore",
                connection -> SpaceBackup.restore(connection, space, from));
        out.println("| stream");
        out.println("|" + "-".repeat(36));
        restored.forEach(stream -> out.println("| " + stream));
        out.println("space '" + space + "' restored from " + from.toAbsolutePath() + " (" + restored.size() + " streams)");
        return 0;
    }

    /** A retired space admits no connection, the command's own included: refused before trying. */
    private static Tenants.Tenant live(Tenants.Tenant tenant) {
        if (tenant.retired()) {
            throw CotalException.failedPrecondition("space '" + tenant.space() + "' is retired and admits no connection:"
                    + " reinstate it first (back up before retiring)");
        }
        return tenant;
    }

    private static void header(PrintStream out, String rest) {
        out.printf(ROW, "space", "account", "state", rest);
        out.printf("|%s|%s|%s|%s%n", "-".repeat(18), "-".repeat(58), "-".repeat(12), "-".repeat(rest.length() + 1));
    }

    /**
     * Pushes {@code claims} in order to every member of the cluster answering at {@code url} (SPEC
     * §5.5: the one server when it is not clustered); returns the members' names. A member that
     * does not answer stops the command: the live members hold the claim, and running the same
     * command again once it is back converges.
     */
    private static String push(Tenants tenants, String url, List<String> claims, Clock clock) {
        return withClaims(tenants, url, clock, claimsApi -> {
            ClusterMembers members = claimsApi.members(PUSH_WAIT);
            for (String claim : claims) {
                try {
                    claimsApi.push(claim, members, PUSH_WAIT);
                } catch (PushIncomplete e) {
                    throw again(e);
                }
            }
            return String.join(", ", members.names());
        });
    }

    /** A push that missed members: the command converges when run again once they are back. */
    private static CotalException again(PushIncomplete e) {
        return new CotalException(ErrorCode.DEADLINE_EXCEEDED, e.getMessage()
                + "; run the same command again once they are back", e);
    }

    /** What the broker holds for each readable tenant: {@code current}, {@code absent} or {@code other}. */
    private static Map<String, String> held(Tenants tenants, String url, List<Tenants.Tenant> all, Clock clock) {
        return withClaims(tenants, url, clock, claimsApi -> {
            Map<String, String> held = new java.util.LinkedHashMap<>();
            for (Tenants.Tenant tenant : all) {
                if (tenant.readable()) {
                    Optional<String> jwt = claimsApi.lookup(tenant.account().accountPublicKey(), PUSH_WAIT);
                    held.put(tenant.space(), jwt.isEmpty() ? "absent" : jwt.get().equals(tenant.account().jwt())
                            ? "current" : "other");
                }
            }
            return held;
        });
    }

    private static <T> T withClaims(Tenants tenants, String url, Clock clock, Function<AccountClaims, T> work) {
        BrokerAuth broker = tenants.broker();
        Creds creds = tenants.claimsCreds();
        try (Connection system = NatsConnector.builder().server(url).creds(creds).label("cotal-auth:account-claims")
                .build().connect()) {
            return work.apply(new AccountClaims(system, broker, clock));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted", e);
        }
    }

    /** Runs {@code work} on a connection as a fresh one-shot credential of the tenant's own account. */
    private static <T> T withSpace(Tenants tenants, Tenants.Tenant tenant, String url, CredentialProfile profile,
            String label, Function<Connection, T> work) {
        Creds creds = Creds.mint(new SpaceAuth(tenants.broker(), tenant.account()), Identity.create(), profile,
                MintOptions.defaults());
        try (Connection connection = NatsConnector.builder().server(url).creds(creds).label("cotal-auth:" + label + ":"
                + tenant.space()).build().connect()) {
            return work.apply(connection);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted", e);
        }
    }
}
