package io.paimongov.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One run of the chaos suite, drawn from the suite's seed and the run's index: which fault, after
 * which phase of the demo, how long after it, on which table mode, with which input seed.
 *
 * <p>The kinds cycle in a fixed order ({@link #KINDS}), so any {@value #CI_RUNS} consecutive runs
 * cover every kind once; a deep run ({@code -Dgovernance.chaos.runs=N}) repeats them with other
 * delays, modes and inputs. The seed reproduces the draw, not the timing: where in the phase the
 * signal lands depends on the machine.
 *
 * @param index the run's index from 0
 * @param fault what stops the run
 * @param phase the phase whose {@code phase <name>} line starts the delay; null for a full disk,
 *     which stops the run by itself
 * @param delayMillis the delay between the phase line and the signal
 * @param mode the demo's {@code --table}
 * @param inputSeed the demo's {@code --seed}
 */
record ChaosCase(int index, Fault fault, String phase, long delayMillis, String mode, long inputSeed) {

    /** What stops the run. */
    enum Fault {
        KILL("SIGKILL"),
        TERM("SIGTERM"),
        /** The spill directory is a file system too small for the spill files. */
        FULL_SPILL_DISK("full disk (spill dir)"),
        /** The warehouse is a file system too small for the table's files. */
        FULL_WAREHOUSE_DISK("full disk (warehouse)");

        final String label;

        Fault(String label) {
            this.label = label;
        }
    }

    /** The default number of runs: each kind once. */
    static final int CI_RUNS = 11;

    /** The suite's default seed; {@code -Dgovernance.chaos.seed} draws others. */
    static final long DEFAULT_SEED = 17;

    /** Rows per demo: enough to spill under {@link #BUDGET}, few enough for a run of a few seconds. */
    static final int ROWS = 25_000;

    static final String BUDGET = "2m";

    private record Kind(Fault fault, String phase, long maxDelayMillis) {}

    /**
     * The kinds, in order, with the longest delay drawn after each phase: long enough to land
     * anywhere inside the phase as it runs here, short enough not to run past it most of the time.
     * With the governed write, a flush and the compaction come inside prepareCommit (docs/cli.md,
     * "Diagnostics").
     */
    private static final List<Kind> KINDS =
            List.of(
                    new Kind(Fault.KILL, "write", 1500),
                    new Kind(Fault.KILL, "spill", 400),
                    new Kind(Fault.KILL, "flush", 150),
                    new Kind(Fault.KILL, "compaction", 100),
                    new Kind(Fault.KILL, "prepareCommit", 200),
                    new Kind(Fault.KILL, "commit", 300),
                    new Kind(Fault.KILL, "readBack", 100),
                    new Kind(Fault.TERM, "spill", 400),
                    new Kind(Fault.TERM, "prepareCommit", 200),
                    new Kind(Fault.FULL_SPILL_DISK, null, 0),
                    new Kind(Fault.FULL_WAREHOUSE_DISK, null, 0));

    /** Every mode that spills and flushes at {@link #ROWS} rows and {@link #BUDGET}. */
    private static final List<String> MODES = List.of("pk", "pk-dv", "pk-lookup", "pk-dynamic");

    /** The modes whose writes run a compaction task (deletion vectors, lookup changelog). */
    private static final List<String> COMPACTING_MODES = List.of("pk-dv", "pk-lookup");

    static List<ChaosCase> draw(long seed, int runs) {
        List<ChaosCase> cases = new ArrayList<>(runs);
        for (int i = 0; i < runs; i++) {
            Random random = new Random(seed * 1_000_003L + i);
            Kind kind = KINDS.get(i % KINDS.size());
            List<String> modes = "compaction".equals(kind.phase) ? COMPACTING_MODES : MODES;
            long delay = kind.maxDelayMillis == 0 ? 0 : random.nextInt((int) kind.maxDelayMillis + 1);
            cases.add(new ChaosCase(i, kind.fault, kind.phase, delay, modes.get(random.nextInt(modes.size())), random.nextInt(1000)));
        }
        return cases;
    }

    /** The demo's sizing options, the same for every run but its mode and input seed. */
    List<String> demoOptions() {
        return List.of(
                "--table", mode, "--seed", Long.toString(inputSeed), "--rows", Integer.toString(ROWS), "--keys", "2500",
                "--buckets", "2", "--budget", BUDGET, "--page-size", "8k", "--json");
    }

    @Override
    public String toString() {
        return "#" + index + " " + fault.label + (phase == null ? "" : " after " + phase + " +" + delayMillis + " ms")
                + ", " + mode + ", seed " + inputSeed;
    }
}
