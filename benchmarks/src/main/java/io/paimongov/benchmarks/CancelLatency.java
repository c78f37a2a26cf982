package io.paimongov.benchmarks;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * P6: how long a cancel takes to reach the writing thread, in four phases of a governed write.
 *
 * <p>Latency is the time from just before {@code GovernedTableWrite.cancel(reason)} is called on a
 * second thread to the writing thread catching {@link WriteCancelledException} from the call it is
 * in. Each sample is a new write (a cancelled write is finished); the canceller waits for the
 * phase, then for a random few milliseconds, then cancels:
 *
 * <ul>
 *   <li>{@link Phase#WRITING}: an in-memory write writing rows without end; cancelled after its
 *       first {@value #WARM_ROWS} rows.
 *   <li>{@link Phase#SPILLING}: a write whose budget is a small fraction of its input, so its buffers
 *       spill over and over; cancelled right after the canceller sees a new spill file created, i.e.
 *       while that spill is being written.
 *   <li>{@link Phase#COMPACTION_WAIT}: {@code prepareCommit} of a write over a compaction backlog
 *       (8 buckets of 6 sorted runs, one compaction thread), cancelled while a compaction runs and
 *       the writing thread waits for it.
 *   <li>{@link Phase#PREPARE_COMMIT}: {@code prepareCommit} of an in-memory write with no backlog, so
 *       it sorts and flushes the buffers to data files; cancelled a random 0 to 20 ms into it.
 * </ul>
 *
 * <p>One untimed sample per phase warms the JVM up first. A sample whose write ended before the
 * cancel came (say, {@code prepareCommit} returned first) is not a latency: it is counted as
 * missed. Not thread-safe; one run at a time.
 */
public final class CancelLatency {

    static final int WARM_ROWS = 5_000;
    private static final long ROW_CAP = 20_000_000;

    /** Where in the write the cancel lands; {@link #key()} names it in the reports. */
    public enum Phase {
        WRITING("writing"),
        SPILLING("spilling"),
        COMPACTION_WAIT("compactionWait"),
        PREPARE_COMMIT("prepareCommit");

        private final String key;

        Phase(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }
    }

    /**
     * @param micros latencies in microseconds, one per sample that was cancelled mid-phase
     * @param missed samples whose write finished before the cancel came
     */
    public record PhaseResult(List<Long> micros, int missed) {

        public double p50Millis() {
            return micros.isEmpty() ? 0 : BenchTables.percentile(micros, 50) / 1000.0;
        }

        public double p99Millis() {
            return micros.isEmpty() ? 0 : BenchTables.percentile(micros, 99) / 1000.0;
        }

        public double maxMillis() {
            return micros.isEmpty() ? 0 : BenchTables.percentile(micros, 100) / 1000.0;
        }
    }

    /** Per phase, in {@link Phase} order. */
    public record Result(Map<Phase, PhaseResult> phases) {

        /** The worst phase's p99: the goal holds only when every phase meets it. */
        public double p99Millis() {
            return phases.values().stream().mapToDouble(PhaseResult::p99Millis).max().orElse(0);
        }

        /** The p50 over all samples of all phases. */
        public double p50Millis() {
            List<Long> all = new ArrayList<>();
            phases.values().forEach(p -> all.addAll(p.micros()));
            return all.isEmpty() ? 0 : BenchTables.percentile(all, 50) / 1000.0;
        }
    }

    /**
     * The sizes.
     *
     * @param samples samples per phase
     * @param prepareRows rows written before the {@link Phase#PREPARE_COMMIT} samples' prepareCommit
     * @param backlogRows rows per commit of the {@link Phase#COMPACTION_WAIT} backlog
     */
    public record Settings(int samples, int prepareRows, int backlogRows) {}

    private interface Body {
        void run(GovernedTableWrite write, AtomicBoolean inPhase) throws Exception;
    }

    private CancelLatency() {}

    /** Measures every phase under {@code workDir}. */
    public static Result run(Path workDir, Settings s) throws Exception {
        SplittableRandom random = new SplittableRandom(3);
        Map<Phase, PhaseResult> out = new EnumMap<>(Phase.class);
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
            out.put(phase, new PhaseResult(micros, missed));
        }
        BenchTables.deleteTree(backlog);
        return new Result(out);
    }

    /** One sample: the latency in nanoseconds, or -1 when the write finished first. */
    private static long sample(Phase phase, Path dir, Path backlog, Settings s, int delayMillis) throws Exception {
        return switch (phase) {
            case WRITING -> measure(
                    fresh(dir, 4), 64L << 20, dir, Map.of(), CancelLatency::writeForever,
                    m -> m.inputRows() >= WARM_ROWS, delayMillis % 10);
            case SPILLING -> measure(
                    fresh(dir, 4), 4L << 20, dir, Map.of(), CancelLatency::writeForever,
                    new NewSpillFile(), 0);
            case COMPACTION_WAIT -> {
                BenchTables.copyTree(backlog, dir.resolve("warehouse"));
                yield measure(
                        BenchTables.table(dir.resolve("warehouse")), 256L << 20, dir,
                        Map.of(GovernanceOptions.COMPACTION_TASK_THREADS, "1"), CancelLatency::touchEveryBucketAndPrepare,
                        m -> m.compactionsRunning() > 0, delayMillis % 5);
            }
            case PREPARE_COMMIT -> measure(
                    fresh(dir, 4), 64L << 20, dir, Map.of(), (write, inPhase) -> writeAndPrepare(write, inPhase, s.prepareRows()),
                    m -> true, delayMillis);
        };
    }

    private static FileStoreTable fresh(Path dir, int buckets) throws Exception {
        return BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(buckets));
    }

    /**
     * Runs {@code body} on this thread and cancels from another once {@code body} entered its phase,
     * {@code ready} holds for the write's metrics and {@code delayMillis} more passed.
     */
    private static long measure(
            FileStoreTable table, long budget, Path dir, Map<String, String> options, Body body,
            Predicate<MetricsSnapshot> ready, int delayMillis) throws Exception {
        GovernedTableWrite write = BenchTables.governedWrite(table, "cancel-latency", budget, dir, options);
        AtomicBoolean inPhase = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong cancelAt = new AtomicLong(-1);
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                while (!done.get() && (!inPhase.get() || !ready.test(write.metrics()))) {
                                    Thread.sleep(1);
                                }
                                Thread.sleep(delayMillis);
                                if (!done.get()) {
                                    cancelAt.set(System.nanoTime());
                                    write.cancel("bench: cancel latency");
                                }
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
        return seen < 0 || at < 0 ? -1 : seen - at;
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
