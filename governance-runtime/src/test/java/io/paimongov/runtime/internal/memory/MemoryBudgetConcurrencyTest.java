package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.allocator.support.HeapPagedAllocator;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random reserve/release sequences from several threads on budgets that share one engine smaller
 * than their sum; after every step its thread checks that no budget and no engine counter passes
 * its capacity, and the exact peaks are checked at the end, when everything must be back to zero.
 * Seeded: a failure prints its seed.
 * Size: {@code governance.reliability.ops} operations per run (CI 4000; deep 100000).
 */
@Tag("reliability")
class MemoryBudgetConcurrencyTest {

    static final int OPS = Integer.getInteger("governance.reliability.ops", 4000);
    private static final int PAGE = 4096;
    private static final int THREADS = 4;

    /** One engine counter shared by several write allocators, each also bounded by its own capacity. */
    static final class Engine {
        final long capacity;
        final AtomicLong used = new AtomicLong();
        /** The most ever taken at once, exact (a check between two steps may miss a short peak). */
        final AtomicLong peak = new AtomicLong();

        Engine(long capacity) {
            this.capacity = capacity;
        }

        /** Takes {@code bytes} (positive) if they fit, atomically. */
        boolean take(long bytes) {
            long before = used.getAndAccumulate(bytes, (now, b) -> now + b > capacity ? now : now + b);
            if (before + bytes > capacity) {
                return false;
            }
            peak.accumulateAndGet(before + bytes, Math::max);
            return true;
        }

        /**
         * One write's allocator on this engine: its own capacity and bookkeeping are {@link
         * HeapPagedAllocator}'s; each reservation is also taken from the engine.
         */
        SegmentAllocator slice(long capacity) {
            return new HeapPagedAllocator("slice", "slice pages", PAGE, capacity, null) {
                @Override
                protected boolean reserveBytes(long bytes) {
                    return take(bytes);
                }

                @Override
                protected void unreserveBytes(long bytes) {
                    used.addAndGet(-bytes);
                }
            };
        }
    }

    @Test
    void randomConcurrentReservationsNeverPassABudgetOrTheEngineAndAllComeBack() throws Exception {
        long seed = System.nanoTime();
        Engine engine = new Engine(48L * PAGE);
        List<MemoryBudget> budgets = List.of(new MemoryBudget(engine.slice(32L * PAGE)),
                new MemoryBudget(engine.slice(32L * PAGE)));
        AtomicLong violations = new AtomicLong();
        AtomicLong checks = new AtomicLong();
        AtomicLong refusedWhileAllHold = new AtomicLong();
        Runnable check = () -> {
            if (engine.used.get() > engine.capacity) {
                violations.incrementAndGet();
            }
            for (MemoryBudget b : budgets) {
                if (b.reservedBytes() > b.capacityBytes() || b.peakBytes() > b.capacityBytes()) {
                    violations.incrementAndGet();
                }
            }
            checks.incrementAndGet();
        };
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        // Every thread first holds 10 pages of its budget until all do: 40 pages at once, more than
        // one budget's worth, whatever the scheduler does. While all hold, each budget has 20 of its
        // 32 pages reserved, so each thread's ask for 13 more must be refused, naming the budget (not
        // the engine) as what is short, whoever asks first; then the random part runs.
        CyclicBarrier allHold = new CyclicBarrier(THREADS);
        CyclicBarrier allAsked = new CyclicBarrier(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            MemoryBudget budget = budgets.get(t % budgets.size());
            Random random = new Random(seed + t);
            done.add(pool.submit(() -> {
                start.await();
                List<MemoryReservation> mine = new ArrayList<>();
                MemoryReservation first = budget.newReservation("t" + Thread.currentThread().getId() + "-first");
                first.grow(10L * PAGE);
                mine.add(first);
                allHold.await(1, TimeUnit.MINUTES);
                try {
                    first.grow(13L * PAGE);
                } catch (ResourceExhaustedException e) {
                    if (e.getMessage().endsWith("raise 'governance.memory.budget' (now 128k)")) {
                        refusedWhileAllHold.incrementAndGet();
                    }
                }
                allAsked.await(1, TimeUnit.MINUTES);
                for (int i = 0; i < OPS / THREADS; i++) {
                    if (mine.isEmpty() || random.nextInt(10) == 0) {
                        mine.add(budget.newReservation("t" + Thread.currentThread().getId() + "-" + i));
                    }
                    MemoryReservation r = mine.get(random.nextInt(mine.size()));
                    long n = (1 + random.nextInt(6)) * (long) PAGE - random.nextInt(PAGE);
                    switch (random.nextInt(5)) {
                        case 0, 1 -> r.tryGrow(n);
                        case 2 -> {
                            try {
                                r.grow(n);
                            } catch (ResourceExhaustedException refused) {
                                // past the budget or the engine: the random part asks for either
                            }
                        }
                        case 3 -> r.shrink(Math.min(n, r.bytes()));
                        default -> {
                            r.close();
                            mine.remove(r);
                            assertThatThrownBy(() -> r.tryGrow(1)).isInstanceOf(GovernanceClosedException.class);
                        }
                    }
                    check.run();
                }
                mine.forEach(MemoryReservation::close);
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(checks.get()).as("a check after every step").isEqualTo((long) THREADS * (OPS / THREADS));
        assertThat(violations.get()).as("checks that found a counter over its capacity, seed " + seed).isZero();
        assertThat(engine.peak.get()).as("both budgets took memory at once: more than one budget's worth, seed " + seed)
                .isGreaterThan(32L * PAGE);
        assertThat(engine.peak.get()).as("the engine's exact peak").isLessThanOrEqualTo(engine.capacity);
        for (MemoryBudget b : budgets) {
            assertThat(b.reservedBytes()).isZero();
            assertThat(b.holders()).isEmpty();
        }
        assertThat(engine.used.get()).isZero();
        assertThat(refusedWhileAllHold.get()).as("asks past the budget while all hold, each refused naming the budget").isEqualTo(THREADS);
    }

    @Test
    void whenTheEngineIsShortTheErrorSaysSoAndDoesNotAskForALargerBudget() {
        Engine engine = new Engine(8L * PAGE);
        MemoryBudget first = new MemoryBudget(engine.slice(16L * PAGE));
        MemoryBudget second = new MemoryBudget(engine.slice(16L * PAGE));
        MemoryReservation hog = first.newReservation("other write");
        hog.grow(6L * PAGE);
        MemoryReservation r = second.newReservation("flush file writer");
        assertThatThrownBy(() -> r.grow(4L * PAGE))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessage("memory exhausted: 'flush file writer' asked for 16384 bytes; 0 of 65536 bytes are reserved,"
                        + " 65536 free; largest holders: none known; the write's budget had room, the engine did not (it"
                        + " holds 0 for this write; the rest of its memory is taken by other writes or consumers): give the"
                        + " engine more memory or run fewer writes at once; raising 'governance.memory.budget' does not help");
        assertThatThrownBy(() -> second.newReservation("x").grow(17L * PAGE))
                .hasMessageEndingWith("; raise 'governance.memory.budget' (now 64k)");
        assertThat(second.tooSmall("first writer and its 3 pages", 20L * PAGE))
                .hasMessageEndingWith("the budget is too small for this table: raise 'governance.memory.budget' from 64k to at least 80k");
        assertThat(second.tooSmall("flush file writer", 4L * PAGE)).hasMessageContaining("the engine did not");
        hog.close();
        r.grow(4L * PAGE);
        r.close();
        assertThat(engine.used.get()).isZero();
        assertThat(second.exhaustedCount()).isEqualTo(4);
    }
}
