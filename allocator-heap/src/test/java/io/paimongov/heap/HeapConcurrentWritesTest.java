package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several governed writes on real tables at once, sharing the heap engine's one pool ({@link
 * HeapMemoryPool} of the provider's standalone engine), each on its own thread, with a sampler
 * reading the pool's own counter throughout.
 *
 * <ul>
 *   <li>Filling the pool: four 2m writes on an 8m pool; every write commits its model, the pool
 *       never passes its capacity and is empty at the end; no spill scope is left.
 *   <li>Over-subscribed: the writes' budgets together are twice the pool. Every write commits
 *       exactly its model or fails with {@link ResourceExhaustedException} and leaves no snapshot;
 *       the pool never passes its capacity and is empty at the end; no spill scope is left.
 *   <li>Cancellation storm: two threads cancel random writes at random moments while they write,
 *       spill and prepare their commit. Every write ends committed (the table equals its model) or
 *       cancelled (no snapshot, no data file), never half; nothing is left.
 * </ul>
 *
 * Sizes: {@code governance.reliability.rounds} rounds of 4 writes of 30000 rows, 2m budgets (CI 2 rounds).
 */
@Tag("reliability")
class HeapConcurrentWritesTest {

    private static final int ROUNDS = Integer.getInteger("governance.reliability.rounds", 2);
    private static final int WRITES = 4;
    private static final int ROWS = 30_000;

    /** Spill files the writes of a test made, read from each write's final snapshot. */
    private final AtomicLong spillFiles = new AtomicLong();

    @TempDir Path dir;

    private enum End { COMMITTED, EXHAUSTED, CANCELLED }

    /**
     * Budgets together twice the pool: the engine, not a write's budget, runs short. Every write
     * commits or fails with {@link ResourceExhaustedException} (a new writer's first pages are taken
     * from the engine before Paimon creates it, and the first-pages floor is never given back while
     * the write is open), never with Paimon's own "Error getting first segment".
     */
    @Test
    void overSubscribedWritesOnOnePoolCommitOrFailCleanlyAndNeverPassIt() throws Exception {
        long poolBytes = 4L << 20;
        Rounds r = rounds("r", poolBytes, false);
        System.out.printf("over-subscribed: %d rounds x %d writes: committed %d, exhausted %d; pool peak %d of %d%n",
                ROUNDS, WRITES, r.count(End.COMMITTED), r.count(End.EXHAUSTED), r.peak(), poolBytes);
        assertThat(r.count(End.COMMITTED)).as("some writes committed").isPositive();
        assertThat(r.count(End.CANCELLED)).isZero();
    }

    /**
     * The pool holds every budget (4 x 2m in 8m) but not every write's wish: each write spills
     * inside its own budget, the pool is filled to its edge, and every write commits its model.
     */
    @Test
    void writesThatFillTheSharedPoolCommitTheirModelAndNeverPassIt() throws Exception {
        long poolBytes = 8L << 20;
        Rounds r = rounds("f", poolBytes, false);
        System.out.printf("shared pool: %d rounds x %d writes: committed %d; pool peak %d of %d; spill files %d%n",
                ROUNDS, WRITES, r.count(End.COMMITTED), r.peak(), poolBytes, spillFiles.get());
        assertThat(spillFiles.get()).as("the writes spilled").isPositive();
        assertThat(r.count(End.COMMITTED)).isEqualTo(ROUNDS * WRITES);
        assertThat(r.peak()).as("the writes together filled most of the pool").isGreaterThan(poolBytes / 2);
    }

    @Test
    void aCancellationStormLeavesEveryWriteCommittedOrCancelledNeverHalf() throws Exception {
        Rounds r = rounds("s", 8L << 20, true);
        System.out.printf("cancellation storm: %d rounds x %d writes: committed %d, cancelled %d, exhausted %d; spill files %d%n",
                ROUNDS, WRITES, r.count(End.COMMITTED), r.count(End.CANCELLED), r.count(End.EXHAUSTED), spillFiles.get());
        assertThat(r.count(End.EXHAUSTED)).isZero();
        assertThat(r.count(End.CANCELLED)).as("the storm cancelled writes").isPositive();
        assertThat(spillFiles.get()).as("the writes spilled before or while they were cancelled").isPositive();
    }

    private record RoundResult(List<End> ends, long peak) {}

    /** How {@code ROUNDS} rounds ended: writes per {@link End}, and the pool's highest sample. */
    private record Rounds(int[] ends, long peak) {
        int count(End end) {
            return ends[end.ordinal()];
        }
    }

    /** {@code ROUNDS} rounds of 2m writes on a pool of {@code poolBytes}, each in {@code dir/<prefix><round>}. */
    private Rounds rounds(String prefix, long poolBytes, boolean storm) throws Exception {
        int[] ends = new int[End.values().length];
        long peak = 0;
        for (int round = 0; round < ROUNDS; round++) {
            RoundResult r = runRound(Files.createDirectories(dir.resolve(prefix + round)), poolBytes, "2m", round, storm);
            r.ends().forEach(e -> ends[e.ordinal()]++);
            peak = Math.max(peak, r.peak());
        }
        return new Rounds(ends, peak);
    }

    /** Where a write is, published by its thread for the cancellers. */
    private static final class Progress {
        final AtomicReference<GovernedTableWrite> write = new AtomicReference<>();
        final AtomicLong rows = new AtomicLong();
        volatile boolean preparing;
        volatile boolean done;
    }

    /**
     * One round: WRITES writes on threads over one pool. With {@code storm}, two threads cancel:
     * each write gets a random target, a row count (cancel mid-write, maybe mid-spill), the start of
     * prepareCommit (cancel while it flushes, spills and compacts), or none (it commits, and is
     * cancelled after that too, which must change nothing); both cancellers fire at every target.
     */
    private RoundResult runRound(Path roundDir, long poolBytes, String budget, int round, boolean storm) throws Exception {
        Path spill = Files.createDirectories(roundDir.resolve("spill"));
        HeapGovernanceProvider provider = new HeapGovernanceProvider();
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, budget,
                GovernanceOptions.PAGE_SIZE, "16k",
                GovernanceOptions.SPILL_DIRS, spill.toString()));
        List<FileStoreTable> tables = new ArrayList<>();
        List<TestTables.Workload> workloads = new ArrayList<>();
        List<Progress> progress = new ArrayList<>();
        List<Long> targets = new ArrayList<>();
        Random targetRandom = new Random(round * 7919L);
        for (int i = 0; i < WRITES; i++) {
            tables.add(TestTables.primaryKeyTable(roundDir.resolve("wh"), "t" + i, 4, "parquet"));
            workloads.add(TestTables.Workload.random(round * 100L + i, ROWS, ROWS / 2, 2, 64));
            progress.add(new Progress());
            targets.add(storm ? (long) targetRandom.nextInt(ROWS * 2) : Long.MAX_VALUE);
        }
        int cancellers = storm ? 2 : 0;
        try (StandaloneEngine engine = provider.standalone(poolBytes, roundDir).orElseThrow()) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong peak = new AtomicLong();
            AtomicLong over = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (running.get()) {
                    long used = engine.engineUsedBytes();
                    peak.accumulateAndGet(used, Math::max);
                    if (used > poolBytes) {
                        over.incrementAndGet();
                    }
                    Thread.yield();
                }
            }, "pool-sampler");
            sampler.start();
            ExecutorService pool = Executors.newFixedThreadPool(WRITES + cancellers);
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<End>> writes = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                int w = i;
                writes.add(pool.submit(() -> {
                    start.await();
                    return write(provider, engine, options, tables.get(w), workloads.get(w).rows(), progress.get(w), "w" + w);
                }));
            }
            for (int c = 0; c < cancellers; c++) {
                pool.submit(() -> {
                    start.await();
                    while (writing.get()) {
                        for (int i = 0; i < WRITES; i++) {
                            Progress p = progress.get(i);
                            long target = targets.get(i);
                            GovernedTableWrite target0 = p.write.get();
                            boolean fire = target < ROWS ? p.rows.get() >= target
                                    : target < ROWS * 3L / 2 ? p.preparing
                                    : p.done;
                            if (target0 != null && fire) {
                                target0.cancel("storm");
                            }
                        }
                        Thread.sleep(1);
                    }
                    return null;
                });
            }
            start.countDown();
            List<End> ends = new ArrayList<>();
            try {
                for (Future<End> f : writes) {
                    ends.add(f.get(10, TimeUnit.MINUTES));
                }
            } finally {
                writing.set(false);
                pool.shutdown();
                assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
                running.set(false);
                sampler.join();
            }
            assertThat(over.get()).as("samples over the pool").isZero();
            assertThat(engine.engineUsedBytes()).as("pool used after the round").isZero();
            for (int i = 0; i < WRITES; i++) {
                FileStoreTable table = tables.get(i);
                if (ends.get(i) == End.COMMITTED) {
                    assertThat(TestTables.read(table)).as("committed write " + i).isEqualTo(workloads.get(i).expected());
                } else {
                    assertThat(table.snapshotManager().latestSnapshot()).as("write " + i + " " + ends.get(i)).isNull();
                    assertThat(WriteHarness.dataFiles(table)).as("data files of write " + i).isEmpty();
                }
            }
            try (Stream<Path> left = Files.list(spill)) {
                assertThat(left.filter(p -> p.getFileName().toString().startsWith(SpillScope.PREFIX))).isEmpty();
            }
            return new RoundResult(ends, peak.get());
        }
    }

    private End write(
            HeapGovernanceProvider provider,
            StandaloneEngine engine,
            GovernanceOptions options,
            FileStoreTable table,
            List<InternalRow> rows,
            Progress progress,
            String name)
            throws Exception {
        GovernedTableWrite write;
        try {
            write = GovernedTableWrite.batch(table, ResourceContext.open(name, provider, options, engine.environment()));
        } catch (ResourceExhaustedException e) {
            return End.EXHAUSTED;
        }
        progress.write.set(write);
        try {
            for (InternalRow row : rows) {
                write.write(row);
                progress.rows.incrementAndGet();
            }
            progress.preparing = true;
            write.prepareCommit().commit();
            progress.done = true;
            return End.COMMITTED;
        } catch (WriteCancelledException e) {
            return End.CANCELLED;
        } catch (ResourceExhaustedException e) {
            return End.EXHAUSTED;
        } finally {
            write.close();
            spillFiles.addAndGet(write.context().snapshot().spillFiles());
            assertThat(write.context().isClosed()).isTrue();
            assertThat(write.context().snapshot().reservedBytes()).isZero();
        }
    }
}
