package ai.cotal.auth.fuzz;

import ai.cotal.core.CotalException;
import ai.cotal.servicehost.ContractException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A mutation fuzzer for the SDK's parsers (issue #11 part 1). Inputs are mutated from valid seeds
 * (bit flips, JSON-significant bytes, insertions, deletions, duplications, truncation, splices,
 * hostile numbers and deep nesting), bounded at 64 KiB. The only acceptable outcomes are a valid
 * parse or a typed refusal ({@link CotalException} or {@link ContractException}); any other
 * throwable, or one input taking over a second, fails with the input for reproduction.
 * {@code -Dfuzz.iterations} sets the inputs per parser (1,000 by default; the {@code fuzz}
 * profile runs 100,000). The seed is fixed per run ({@code -Dfuzz.seed}) so a failure replays.
 */
public final class Fuzz {
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** One parser under test. */
    public interface Parser {
        void parse(byte[] input) throws Exception;
    }

    static final int MAX = 64 * 1024;
    private static final byte[][] TOKENS = {"{".getBytes(), "}".getBytes(), "[".getBytes(), "]".getBytes(),
            "\"".getBytes(), ",".getBytes(), ":".getBytes(), "\\".getBytes(), "null".getBytes(), "true".getBytes(),
            "-0".getBytes(), "1e400".getBytes(), "9007199254740993".getBytes(), "0.5".getBytes(), "\\u0000".getBytes(),
            ".".getBytes(), "=".getBytes(), "\n".getBytes(), "\u00ff".getBytes(StandardCharsets.UTF_8), {0}, {(byte) 0xff}};

    private Fuzz() {
    }

    public static int iterations() {
        return Integer.getInteger("fuzz.iterations", 1_000);
    }

    /** Runs {@link #iterations()} mutated inputs from {@code seeds} through {@code parser}. */
    public static Report run(String name, List<byte[]> seeds, Parser parser) {
        long seed = Long.getLong("fuzz.seed", 20261129L) ^ name.hashCode();
        SplittableRandom random = new SplittableRandom(seed);
        Report report = new Report(name);
        for (byte[] s : seeds) {
            check(report, parser, s); // the seeds themselves must parse or refuse cleanly
        }
        for (int i = 0; i < iterations(); i++) {
            byte[] input = mutate(random, seeds);
            check(report, parser, input);
            if (report.failures.size() >= 5) {
                break;
            }
        }
        return report;
    }

    /**
     * A hang detector, not a speed test: an input fails when parsing it burns more than a second of
     * this thread's CPU (a super-linear path) or takes more than ten seconds of wall time (a hang).
     * Wall time alone is no measure on a loaded machine: a run sharing two cores once took 1.1 s
     * for an input that parses in microseconds.
     */
    private static void check(Report report, Parser parser, byte[] input) {
        long start = System.nanoTime();
        long cpuStart = CPU.getCurrentThreadCpuTime();
        try {
            parser.parse(input);
            report.parsed++;
        } catch (CotalException | ContractException refused) {
            report.refused++;
        } catch (Throwable other) {
            report.failures.add(other.getClass().getName() + ": " + other.getMessage() + " on input (base64) "
                    + Base64.getEncoder().encodeToString(input));
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        long cpuMillis = (CPU.getCurrentThreadCpuTime() - cpuStart) / 1_000_000;
        if (cpuMillis > 1_000 || millis > 10_000) {
            report.failures.add("took " + millis + " ms (" + cpuMillis + " ms CPU) on input (base64) "
                    + Base64.getEncoder().encodeToString(input));
        }
        report.inputs++;
    }

    static byte[] mutate(SplittableRandom random, List<byte[]> seeds) {
        byte[] data = seeds.get(random.nextInt(seeds.size())).clone();
        int rounds = 1 + random.nextInt(4);
        for (int r = 0; r < rounds; r++) {
            data = mutateOnce(random, data, seeds);
        }
        return data.length > MAX ? java.util.Arrays.copyOf(data, MAX) : data;
    }

    private static byte[] mutateOnce(SplittableRandom random, byte[] data, List<byte[]> seeds) {
        int n = data.length;
        switch (random.nextInt(9)) {
            case 0 -> { // flip a bit
                if (n > 0) {
                    data[random.nextInt(n)] ^= (byte) (1 << random.nextInt(8));
                }
                return data;
            }
            case 1 -> { // overwrite with a significant token
                return splice(data, random.nextInt(n + 1), random.nextInt(Math.min(4, n) + 1),
                        TOKENS[random.nextInt(TOKENS.length)]);
            }
            case 2 -> { // insert random bytes
                byte[] bytes = new byte[1 + random.nextInt(8)];
                random.nextBytes(bytes);
                return splice(data, random.nextInt(n + 1), 0, bytes);
            }
            case 3 -> { // delete a range
                int at = random.nextInt(n + 1);
                return splice(data, at, random.nextInt(n - at + 1), new byte[0]);
            }
            case 4 -> { // duplicate a range
                int at = random.nextInt(n + 1);
                int len = random.nextInt(Math.min(n - at, 256) + 1);
                return splice(data, at, 0, java.util.Arrays.copyOfRange(data, at, at + len));
            }
            case 5 -> { // truncate
                return java.util.Arrays.copyOf(data, random.nextInt(n + 1));
            }
            case 6 -> { // splice in a piece of another seed
                byte[] other = seeds.get(random.nextInt(seeds.size()));
                int from = random.nextInt(other.length + 1);
                int len = random.nextInt(other.length - from + 1);
                return splice(data, random.nextInt(n + 1), random.nextInt(Math.min(16, n) + 1),
                        java.util.Arrays.copyOfRange(other, from, from + len));
            }
            case 7 -> { // deep nesting
                int depth = 1 + random.nextInt(2_000);
                byte[] open = new byte[depth];
                java.util.Arrays.fill(open, (byte) (random.nextBoolean() ? '[' : '{'));
                return splice(data, random.nextInt(n + 1), 0, open);
            }
            default -> { // replace a digit run or a quote with a hostile number
                return splice(data, random.nextInt(n + 1), random.nextInt(Math.min(3, n) + 1),
                        TOKENS[9 + random.nextInt(4)]);
            }
        }
    }

    private static byte[] splice(byte[] data, int at, int remove, byte[] insert) {
        int cut = Math.min(remove, data.length - at);
        byte[] out = new byte[data.length - cut + insert.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(data, at + cut, out, at + insert.length, data.length - at - cut);
        return out;
    }

    /** What one parser's run produced. */
    public static final class Report {
        final String name;
        int inputs;
        int parsed;
        int refused;
        final List<String> failures = new ArrayList<>();

        Report(String name) {
            this.name = name;
        }

        public List<String> failures() {
            return failures;
        }

        @Override
        public String toString() {
            return name + ": " + inputs + " inputs, " + parsed + " parsed, " + refused + " refused, " + failures.size()
                    + " failures";
        }
    }

    /** UTF-8 bytes of each text. */
    public static List<byte[]> utf8(String... texts) {
        List<byte[]> out = new ArrayList<>();
        for (String t : texts) {
            out.add(t.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }
}
