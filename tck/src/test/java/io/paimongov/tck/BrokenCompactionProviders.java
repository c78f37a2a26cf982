package io.paimongov.tck;

import io.paimongov.spi.EngineResources.CompactionThreads;
import java.util.concurrent.Semaphore;

/** Providers broken in the compaction threads their engine gives (COMPACT-*), one thing each. */
public final class BrokenCompactionProviders {

    private BrokenCompactionProviders() {}

    /** Its factory's threads run the runnable they are given twice, one run after the other. */
    public static final class RunsTwice extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-runs-twice";
        }

        @Override
        CompactionThreads compaction() {
            CompactionThreads threads = super.compaction();
            return CompactionThreads.of(task -> threads.threadFactory().newThread(() -> {
                task.run();
                task.run();
            }), threads.maxThreads());
        }
    }

    /**
     * Says it allows 4 compaction threads, but its engine has 2 slots: a thread waits for a free
     * slot before it runs its runnable, and holds it until the runnable ends.
     */
    public static final class OverstatesThreads extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-overstates-threads";
        }

        @Override
        CompactionThreads compaction() {
            CompactionThreads threads = super.compaction();
            Semaphore slots = new Semaphore(2);
            return CompactionThreads.of(task -> threads.threadFactory().newThread(() -> {
                slots.acquireUninterruptibly();
                try {
                    task.run();
                } finally {
                    slots.release();
                }
            }), 4);
        }
    }
}
