package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.memory.SharedMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Members of one shared memory on their own threads, as the writers of a slot run: each grows and
 * shrinks its reservations at random, and at the start of every step gives back what it owes (its
 * safe point; none of them gives back from another thread). The engine is exactly the pool, so the
 * engine's own counter judges the pool: a request that keeps a member within its share must find
 * the memory in the engine (the member waited for the debtors, which pay at their next step), and
 * the engine never holds more than the pool. Seeded: a failure prints its seed. Size: {@code
 * governance.reliability.ops} steps per run, spread over the threads.
 */
@Tag("reliability")
class MemoryArbiterConcurrencyTest {

    private static final int PAGE = 4096;
    private static final int MEMBERS = 4;
    private static final long SHARE = 32L * PAGE;

    @Test
    void membersOnTheirOwnThreadsGetTheirSharesAndNeverPassTheEngine() throws Exception {
        long seed = System.nanoTime();
        MemoryBudgetConcurrencyTest.Engine engine = new MemoryBudgetConcurrencyTest.Engine(MEMBERS * SHARE);
        SharedMemory shared = SharedMemory.of("slot", engine.capacity);
        List<MemoryBudget> budgets = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            budgets.add(MemoryBudget.member(engine.slice(engine.capacity), shared, "w" + i, SHARE, 30_000, () -> false));
        }
        AtomicLong refusedWithinShare = new AtomicLong();
        AtomicLong withinShare = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(MEMBERS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < MEMBERS; t++) {
            MemoryBudget budget = budgets.get(t);
            Random random = new Random(seed + t);
            // The first member asks for much more than the others: it borrows, they reclaim.
            int most = t == 0 ? 24 : 6;
            done.add(threads.submit(() -> {
                MemoryReservation r = budget.newReservation("buffer");
                for (int i = 0; i < MemoryBudgetConcurrencyTest.OPS / MEMBERS; i++) {
                    long owed = budget.owedBytes();
                    if (owed > 0) {
                        r.shrink(Math.min(owed, r.bytes()));
                    }
                    long n = (1 + random.nextInt(most)) * (long) PAGE;
                    if (random.nextInt(3) > 0) {
                        boolean within = budget.reservedBytes() + n <= SHARE;
                        boolean grew = r.tryGrow(n);
                        if (within) {
                            withinShare.incrementAndGet();
                            if (!grew) {
                                refusedWithinShare.incrementAndGet();
                            }
                        }
                    } else {
                        r.shrink(Math.min(n, r.bytes()));
                    }
                }
                r.close();
                budget.leavePool();
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(5, TimeUnit.MINUTES);
        }
        threads.shutdown();

        assertThat(withinShare.get()).isPositive();
        assertThat(refusedWithinShare.get()).as("requests within the share the engine refused, seed " + seed).isZero();
        assertThat(engine.peak.get()).as("the engine's exact peak, seed " + seed).isLessThanOrEqualTo(engine.capacity);
        long takenBack = budgets.stream().mapToLong(MemoryBudget::reclaimedByBytes).sum();
        long givenBack = budgets.stream().mapToLong(MemoryBudget::reclaimedFromBytes).sum();
        assertThat(takenBack).as("what was reclaimed was reclaimed from someone, seed " + seed).isEqualTo(givenBack);
        assertThat(engine.used.get()).isZero();
        assertThat(shared.memberCount()).isZero();
        assertThat(shared.poolBytes()).isZero();
    }
}
