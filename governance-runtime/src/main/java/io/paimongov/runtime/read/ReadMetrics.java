package io.paimongov.runtime.read;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The counters of one governed read. Thread-safe: split readers of one read may run on several threads. */
final class ReadMetrics {

    final LongAdder planBytes = new LongAdder();
    final LongAdder splitsRead = new LongAdder();
    final LongAdder filesOpened = new LongAdder();
    final LongAdder bytesOpened = new LongAdder();
    final LongAdder rowsRead = new LongAdder();
    final LongAdder sectionsMerged = new LongAdder();
    final LongAdder runsMerged = new LongAdder();
    final AtomicLong mostRuns = new AtomicLong();
    final LongAdder sectionsInPasses = new LongAdder();
    final LongAdder mergePasses = new LongAdder();
    final LongAdder spilledRuns = new LongAdder();
    final LongAdder spillBytes = new LongAdder();
    final LongAdder outputBatches = new LongAdder();
    final LongAdder outputBatchesReleased = new LongAdder();
    final LongAdder smallerBatchSplits = new LongAdder();
    final AtomicBoolean cancelled = new AtomicBoolean();
    private final Level reserved = new Level();
    private final Level output = new Level();

    void section(int runs) {
        sectionsMerged.increment();
        runsMerged.add(runs);
        mostRuns.accumulateAndGet(runs, Math::max);
    }

    /** {@code bytes} more (or, negative, fewer) held for readers and merges. */
    void reserved(long bytes) {
        reserved.add(bytes);
    }

    /** {@code bytes} more (or, negative, fewer) held for output batches. */
    void output(long bytes) {
        output.add(bytes);
    }

    ReadSnapshot snapshot() {
        return new ReadSnapshot(planBytes.sum(), splitsRead.sum(), filesOpened.sum(), bytesOpened.sum(), rowsRead.sum(), sectionsMerged.sum(),
                runsMerged.sum(), mostRuns.get(), sectionsInPasses.sum(), mergePasses.sum(), spilledRuns.sum(), spillBytes.sum(),
                reserved.now.get(), reserved.peak.get(), output.now.get(), output.peak.get(), outputBatches.sum(),
                outputBatchesReleased.sum(), cancelled.get(), smallerBatchSplits.sum());
    }

    /** A level and its peak. */
    private static final class Level {
        final AtomicLong now = new AtomicLong();
        final AtomicLong peak = new AtomicLong();

        void add(long bytes) {
            long level = now.addAndGet(bytes);
            peak.accumulateAndGet(level, Math::max);
        }
    }
}
