package io.paimongov.benchmarks;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

/**
 * P6: how long a cancel takes to reach the writing thread, in each phase of a governed write.
 *
 * <p>Latency is the time from just before {@code GovernedTableWrite.cancel(reason)} is called on a
 * second thread to the writing thread catching {@link WriteCancelledException} from the call it is
 * in. Each sample is a new write (a cancelled write is finished); the canceller waits for the
 * phase's trigger, then for a random few milliseconds (none for {@link Phase#COMMIT}), then
 * cancels. The six phases of the goal ({@link Phase#goal()}):
 *
 * <ul>
 *   <li>{@link Phase#WRITE}: an in-memory write writing rows without end; after its first {@value
 *       #WARM_ROWS} rows.
 *   <li>{@link Phase#SPILL}: a write whose budget is a small fraction of its input, so its buffers
 *       spill over and over; as soon as a new spill file is seen.
 *   <li>{@link Phase#FLUSH}: {@code prepareCommit} of an in-memory write; once the writing thread
 *       created its first data file ({@link CancelPoints}), 0 to 4 ms into the flush.
 *   <li>{@link Phase#COMPACTION}: a stream write over a compaction backlog (8 buckets of 6 sorted
 *       runs, one compaction thread) whose {@code prepareCommit(false, 1)} starts compactions and
 *       returns, then writes rows; once a compaction task opened its first file to read, 0 to 9 ms
 *       into the rewrite (a sample whose compactions all ended in those milliseconds is missed).
 *       The writing thread sees the cancel at its next row; the latency ends when the compaction
 *       thread stopped and the write was undone.
 *   <li>{@link Phase#PREPARE_COMMIT}: {@code prepareCommit} of an in-memory write with no backlog
 *       (it sorts and flushes the buffers to data files); 0 to 19 ms into it.
 *   <li>{@link Phase#COMMIT}: {@code commit()} of a prepared write; as soon as the commit created its
 *       first manifest file. A commit takes a few milliseconds, less than a loaded machine may take
 *       to run the canceller, so the committing thread waits at that file until the cancel was made
 *       ({@link CancelPoints#holdAtManifest}): the cancel lands there on any machine, and the latency
 *       counts from the cancel on as in every phase.
 * </ul>
 *
 * <p>{@link Phase#COMPACTION_WAIT}, a diagnostic outside the goal: {@code prepareCommit} of a batch
 * write over the same backlog, cancelled 0 to 4 ms after a compaction is seen running, while the
 * writing thread waits for it.
 *
 * <p>One untimed sample per phase warms the JVM up first. A sample whose write ended before the
 * cancel came (say, the commit was published first) is not a latency: it is counted as missed. A
 * goal phase whose samples all missed has no latency at all, and the worst phase's p99 is then
 * unknown ({@link CancelLatencyResult#p99Millis} is null), not the worst of the phases that were measured.
 * Not thread-safe; one run at a time.
 */
public final class CancelLatency {

    static final int WARM_ROWS = 5_000;
    private static final long ROW_CAP = 20_000_000;
    /** Rows the {@link Phase#COMPACTION} write goes on writing after its prepareCommit, at most. */
    private static final long COMPACTION_ROW_CAP = 2_000_000;
    /** How often the canceller looks for the phase's trigger. */
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** Where in the write the cancel lands; {@link #key()} names it in the reports. */
    public enum Phase {
        WRITE("write", "writing", true),
        SPILL("spill", "spilling", true),
        FLUSH("flush", null, true),
        COMPACTION("compaction", null, true),
        PREPARE_COMMIT("prepareCommit", "prepareCommit", true),
        COMMIT("commit", null, true),
        COMPACTION_WAIT("compactionWait", "compactionWait", false);

        private final String key;
        private final String p6Key;
        private final boolean goal;

        Phase(String key, String p6Key, boolean goal) {
            this.key = key;
            this.p6Key = p6Key;
            this.goal = goal;
        }

        /** The phase's key in {@code cancel} of the bench report. */
        public String key() {
            return key;
        }

        /** Its key in the earlier four-phase report {@code p6Cancel}; null for phases added since. */
        public String p6Key() {
            return p6Key;
        }

        /** Whether the goal (p99 at most 50 ms) covers the phase; false for the diagnostic. */
        public boolean goal() {
            return goal;
        }
    }

    /**
     * The sizes.
     *
     * @param samples samples per phase
     * @param prepareRows rows written before the {@link Phase#PREPARE_COMMIT} and {@link Phase#FLUSH}
     *     samples' prepareCommit (a tenth of them before a {@link Phase#COMMIT} sample's)
     * @param backlogRows rows per commit of the compaction backlog
     */
    public record Settings(int samples, int prepareRows, int backlogRows) {}

    private interface Body {
        void run(GovernedTableWrite write, AtomicBoolean inPhase) throws Exception;
    }

    private CancelLatency() {}

    /** Measures every phase under {@code workDir}. */
    public static CancelLatencyResult run(Path workDir, Settings s) throws Exception {
        SplittableRandom random = new SplittableRandom(3);
        Map<Phase, CancelLatencyResult.PhaseResult> out = new EnumMap<>(Phase.class);
        Path backlog = workDir.resolve("backlog");
        CompactionDrain.buildBacklog(backlog, s.backlogRows(), 6);
        for (Phase phase : Phase.values()) {
            List<Long> micros = new ArrayList<>();
            int missed = 0;
            Path warmUp = workDir.resolve(phase.key() + "-warm-up");
            sample(phase, warmUp, backlog, s, 0);
            BenchTables.deleteTree(warmUp);
            for (int i = 0; i < s.samples(); i++) {
                Path dir = workDir.resolve(phase.key() + "-" + i);
                long nanos = sample(phase, dir, backlog, s, random.nextInt(20));
                BenchTables.deleteTree(dir);
                if (nanos < 0) {
                    missed++;
                } else {
                    micros.add(nanos / 1000);
                }
            }
            out.put(phase, new CancelLatencyResult.PhaseResult(micros, missed));

        }
        BenchTables.deleteTree(backlog);
        return new CancelLatencyResult(out);
    }

    /** One sample: the latency in nanoseconds, or -1 when the write finished first. */
    private static long sample(Phase phase, Path dir, Path backlog, Settings s, int delayMillis) throws Exception {
        CancelPoints points = new CancelPoints(Thread.currentThread());
        return switch (phase) {
            case WRITE -> {
                GovernedTableWrite write = batch(fresh(dir, points), 64L << 20, dir, Map.of());
                yield measure(write, CancelLatency::writeForever, when(write, m -> m.inputRows() >= WARM_ROWS), delayMillis % 10);
            }
            case SPILL -> {
                GovernedTableWrite write = batch(fresh(dir, points), 4L << 20, dir, Map.of());
                yield measure(write, CancelLatency::writeForever, when(write, new NewSpillFile()), 0);
            }
            case FLUSH -> {
                GovernedTableWrite write = batch(fresh(dir, points), 64L << 20, dir, Map.of());
                yield measure(write, (w, inPhase) -> writeAndPrepare(w, inPhase, s.prepareRows()), () -> points.flushStarted, delayMillis % 5);
            }
            case COMPACTION -> {
                GovernedTableWrite write = stream(backlogCopy(backlog, dir, points), 256L << 20, dir);
                yield measure(write, CancelLatency::compactAndWrite, () -> points.compactionStarted,
                        when(write, m -> m.compactionsRunning() > 0), delayMillis % 10);
            }
            case PREPARE_COMMIT -> {
                GovernedTableWrite write = batch(fresh(dir, points), 64L << 20, dir, Map.of());
                yield measure(write, (w, inPhase) -> writeAndPrepare(w, inPhase, s.prepareRows()), () -> true, delayMillis);
            }
            case COMMIT -> {
                points.holdAtManifest = true;
                GovernedTableWrite write = batch(fresh(dir, points), 64L << 20, dir, Map.of());
                yield measure(write, (w, inPhase) -> prepareAndCommit(w, inPhase, Math.max(1, s.prepareRows() / 10)),
                        () -> points.manifestCreated, () -> true, 0, points);
            }
            case COMPACTION_WAIT -> {
                GovernedTableWrite write = batch(backlogCopy(backlog, dir, points), 256L << 20, dir,
                        Map.of(GovernanceOptions.COMPACTION_TASK_THREADS, "1"));
                yield measure(write, CancelLatency::touchEveryBucketAndPrepare, when(write, m -> m.compactionsRunning() > 0), delayMillis % 5);
            }
        };
    }

    /** A new 4-bucket primary-key table, its files seen through {@code points}. */
    private static FileStoreTable fresh(Path dir, CancelPoints points) throws Exception {
        return watched(BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(4)), points);
    }

    /** A copy of the compaction backlog, its files seen through {@code points}. */
    private static FileStoreTable backlogCopy(Path backlog, Path dir, CancelPoints points) throws Exception {
        BenchTables.copyTree(backlog, dir.resolve("warehouse"));
        return watched(BenchTables.table(dir.resolve("warehouse")), points);
    }

    private static FileStoreTable watched(FileStoreTable table, CancelPoints points) {
        return FileStoreTableFactory.create(points, table.location(), table.schema());
    }

    private static GovernedTableWrite batch(FileStoreTable table, long budget, Path dir, Map<String, String> options) {
        return BenchTables.governedWrite(table, "cancel-latency", budget, dir, options);
    }

    /** A stream write with one compaction thread, on the heap provider. */
    private static GovernedTableWrite stream(FileStoreTable table, long budget, Path dir) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(budget));
        values.put(GovernanceOptions.SPILL_DIRS, dir.toString());
        values.put(GovernanceOptions.COMPACTION_TASK_THREADS, "1");
        ResourceContext context = ResourceContext.open(
                "cancel-latency", new HeapGovernanceProvider(), GovernanceOptions.of(values), EngineEnvironment.standalone());
        return GovernedTableWrite.stream(table, "cancel-latency", context);
    }

    private static BooleanSupplier when(GovernedTableWrite write, Predicate<MetricsSnapshot> ready) {
        return () -> ready.test(write.metrics());
    }

    /**
     * Runs {@code body} on this thread and cancels from another once {@code body} entered its phase,
     * {@code ready} holds and {@code delayMillis} more passed.
     */
    private static long measure(GovernedTableWrite write, Body body, BooleanSupplier ready, int delayMillis) throws Exception {
        return measure(write, body, ready, () -> true, delayMillis);
    }

    private static long measure(
            GovernedTableWrite write, Body body, BooleanSupplier ready, BooleanSupplier stillInPhase, int delayMillis)
            throws Exception {
        return measure(write, body, ready, stillInPhase, delayMillis, new CancelPoints(null));
    }

    /**
     * As above; a sample where {@code stillInPhase} is false just before the cancel (the phase ended
     * during the delay) is cancelled all the same but counted as missed.
     */
    private static long measure(
            GovernedTableWrite write, Body body, BooleanSupplier ready, BooleanSupplier stillInPhase, int delayMillis,
            CancelPoints points) throws Exception {
        AtomicBoolean inPhase = new AtomicBoolean();
        AtomicBoolean outOfPhase = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong cancelAt = new AtomicLong(-1);
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                while (!done.get() && (!inPhase.get() || !ready.getAsBoolean())) {
                                    LockSupport.parkNanos(POLL_NANOS);
                                }
                                Thread.sleep(delayMillis);
                                if (!done.get()) {
                                    outOfPhase.set(!stillInPhase.getAsBoolean());
                                    cancelAt.set(System.nanoTime());
                                    write.cancel("bench: cancel latency");
                                }
                                points.cancelMade = true;
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "cancel-latency-canceller");
        canceller.setDaemon(true);
        canceller.start();
        long seen = -1;
        try {
            body.run(write, inPhase);
        } catch (WriteCancelledException e) {
            seen = System.nanoTime();
        } finally {
            // A flag, not an interrupt: the canceller may be inside cancel(), cleaning up the write.
            done.set(true);
            canceller.join();
            write.close();
        }
        long at = cancelAt.get();
        return seen < 0 || at < 0 || outOfPhase.get() ? -1 : seen - at;
    }

    private static void writeForever(GovernedTableWrite write, AtomicBoolean inPhase) throws Exception {
        BenchTables.Rows rows = new BenchTables.Rows(5, 1_000_000, 64);
        inPhase.set(true);
        for (long i = 0; i < ROW_CAP; i++) {
            write.write(rows.next());
        }
    }

    private static void writeAndPrepare(GovernedTableWrite write, AtomicBoolean inPhase, int rows) throws Exception {
        BenchTables.Rows generator = new BenchTables.Rows(5, rows, 64);
        for (int i = 0; i < rows; i++) {
            write.write(generator.next());
        }
        inPhase.set(true);
        write.prepareCommit();
    }

    private static void prepareAndCommit(GovernedTableWrite write, AtomicBoolean inPhase, int rows) throws Exception {
        BenchTables.Rows generator = new BenchTables.Rows(5, rows, 64);
        for (int i = 0; i < rows; i++) {
            write.write(generator.next());
        }
        PreparedCommit prepared = write.prepareCommit();
        inPhase.set(true);
        prepared.commit();
    }

    /** One more sorted run in every bucket, compactions started without waiting, then rows without end. */
    private static void compactAndWrite(GovernedTableWrite write, AtomicBoolean inPhase) throws Exception {
        for (int k = 0; k < CompactionDrain.BUCKETS * 16; k++) {
            write.write(GenericRow.of(k, BinaryString.fromString("cancel")));
        }
        inPhase.set(true);
        write.prepareCommit(false, 1);
        BenchTables.Rows rows = new BenchTables.Rows(7, 1_000_000, 64);
        for (long i = 0; i < COMPACTION_ROW_CAP; i++) {
            write.write(rows.next());
        }
    }

    private static void touchEveryBucketAndPrepare(GovernedTableWrite write, AtomicBoolean inPhase) throws Exception {
        for (int k = 0; k < CompactionDrain.BUCKETS * 16; k++) {
            write.write(GenericRow.of(k, BinaryString.fromString("cancel")));
        }
        inPhase.set(true);
        write.prepareCommit();
    }

    /** True once a spill file was created after the first look: a spill is being written. */
    private static final class NewSpillFile implements Predicate<MetricsSnapshot> {
        private long first = -1;

        @Override
        public boolean test(MetricsSnapshot m) {
            if (first < 0) {
                first = m.spillFiles();
                return false;
            }
            return m.spillFiles() > first;
        }
    }
}
