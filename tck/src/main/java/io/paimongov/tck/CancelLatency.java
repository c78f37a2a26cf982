package io.paimongov.tck;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.WriteCancelledException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * CANCEL-1's measurement: many short writes on one table, each cancelled from another thread at a
 * drawn point, and how long each took to throw {@link WriteCancelledException} after the cancel.
 *
 * <p>The first half of the rounds cancel at the entry of one of the write's first page allocations
 * (the kit's wrapper sees the call enter before the vendor's allocator runs), so an allocator that
 * keeps a cancelled write in {@code allocate} is caught in the act, not by luck; the second half
 * cancel at a drawn row.
 * Nothing is committed, so the table stays empty and every round starts alike. The rounds stop
 * early once more than 1% of them passed the bound: the p99 is then above it whatever follows.
 *
 * <p>Not thread-safe: one rule's thread runs it, with its own writing and cancelling threads.
 */
final class CancelLatency {

    /** Rows drawn from for a row point; a round writes its workload's rows over and over until the cancel is seen. */
    private static final int ROWS = 3_000;
    /** How long a round writes at most waiting for its cancel to be seen. */
    private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** The latencies measured (nanoseconds, in round order) and the rounds that did not end cancelled. */
    record Result(List<Long> nanos, List<String> notCancelled) {

        /** The 99th percentile (nearest rank) of the latencies, in milliseconds; -1 when none was measured. */
        long p99Millis() {
            if (nanos.isEmpty()) {
                return -1;
            }
            List<Long> sorted = new ArrayList<>(nanos);
            sorted.sort(null);
            int rank = (int) Math.ceil(0.99 * sorted.size());
            return TimeUnit.NANOSECONDS.toMillis(sorted.get(rank - 1));
        }

        long maxMillis() {
            return nanos.stream().mapToLong(TimeUnit.NANOSECONDS::toMillis).max().orElse(-1);
        }
    }

    private CancelLatency() {}

    /**
     * Runs up to {@code rounds} cancelled writes of {@code shape}'s rows in {@code s}, stopping once
     * more than 1% of {@code rounds} took longer than {@code boundMillis}.
     */
    static Result measure(TckSubject s, Workload shape, GovernanceOptions options, int rounds, long boundMillis, long seed)
            throws Exception {
        FileStoreTable table = shape.createTable(s.warehouse, "latency");
        Random random = new Random(seed);
        List<Long> nanos = new ArrayList<>();
        List<String> notCancelled = new ArrayList<>();
        int over = 0;
        for (int round = 0; round < rounds && over <= rounds / 100; round++) {
            // Allocation rounds first: an allocator that holds a cancelled write is judged before any row round.
            boolean atAllocation = round < (rounds + 1) / 2;
            int at = atAllocation ? 1 + random.nextInt(GovernedTableWrite.MIN_WRITER_PAGES) : 1 + random.nextInt(ROWS - 1);
            String point = atAllocation ? "page allocation " + at : "row " + at;
            long latency = cancelOnce(s, shape, table, options, round, atAllocation, at, point, notCancelled);
            if (latency >= 0) {
                nanos.add(latency);
                if (TimeUnit.NANOSECONDS.toMillis(latency) > boundMillis) {
                    over++;
                }
            }
        }
        return new Result(nanos, notCancelled);
    }

    /** One cancelled write; the latency in nanoseconds, or -1 when it did not end cancelled (noted). */
    private static long cancelOnce(
            TckSubject s,
            Workload shape,
            FileStoreTable table,
            GovernanceOptions options,
            int round,
            boolean atAllocation,
            int at,
            String point,
            List<String> notCancelled)
            throws Exception {
        ResourceContext context = ResourceContext.open("tck-latency-" + round, s.provider, options, s.environment());
        GovernedTableWrite write = GovernedTableWrite.batch(table, context);
        int allocationsBefore = s.provider.allocationCalls();
        AtomicInteger written = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong cancelledAt = new AtomicLong();
        BooleanSupplier reached =
                atAllocation ? () -> s.provider.allocationCalls() - allocationsBefore >= at : () -> written.get() >= at;
        Thread canceller = new Thread(() -> {
            while (!reached.getAsBoolean() && !done.get()) {
                Thread.onSpinWait();
            }
            if (!done.get()) {
                cancelledAt.set(System.nanoTime());
                write.cancel("tck: latency round " + round + " at " + point);
            }
        }, "tck-latency-canceller");
        canceller.setDaemon(true);
        canceller.start();
        Throwable ended = null;
        long seen = -1;
        try {
            long deadline = System.nanoTime() + ROUND_NANOS;
            while (System.nanoTime() < deadline) {
                for (InternalRow row : shape.rowsInOrder()) {
                    write.write(row);
                    written.incrementAndGet();
                }
            }
        } catch (WriteCancelledException e) {
            seen = System.nanoTime();
            ended = e;
        } catch (Throwable t) {
            ended = t;
        } finally {
            done.set(true);
            canceller.join(30_000);
            write.close();
        }
        if (seen < 0 || cancelledAt.get() == 0) {
            notCancelled.add(point + ": " + (ended == null ? "still writing " + TimeUnit.NANOSECONDS.toSeconds(ROUND_NANOS) + " s later" : ended.toString()));
            return -1;
        }
        return seen - cancelledAt.get();
    }
}
