package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryReservationTest {

    private final BoundedTestAllocator allocator = new BoundedTestAllocator(4096, 1 << 20);
    private final MemoryBudget budget = new MemoryBudget(allocator);

    @Test
    void growAndShrinkAreAccountedInBudgetAndEngine() {
        MemoryReservation r = budget.newReservation("encoder");
        assertThat(r.tryGrow(1000)).isTrue();
        r.grow(24);
        assertThat(r.bytes()).isEqualTo(1024);
        assertThat(budget.reservedBytes()).isEqualTo(1024);
        assertThat(allocator.usedBytes()).isEqualTo(1024);
        r.shrink(512);
        assertThat(budget.reservedBytes()).isEqualTo(512);
        assertThat(allocator.usedBytes()).isEqualTo(512);
        assertThat(budget.peakBytes()).isEqualTo(1024);
    }

    @Test
    void failedTryGrowLeavesAccountingUnchanged() {
        MemoryReservation a = budget.newReservation("a");
        a.grow(1 << 19);
        MemoryReservation b = budget.newReservation("b");
        assertThat(b.tryGrow((1 << 19) + 1)).isFalse();
        assertThat(b.bytes()).isZero();
        assertThat(budget.reservedBytes()).isEqualTo(1 << 19);
        assertThat(allocator.usedBytes()).isEqualTo(1 << 19);
    }

    @Test
    void engineRefusalLeavesBudgetUnchanged() {
        MemoryReservation r = budget.newReservation("r");
        allocator.refuseReservations = true;
        assertThat(r.tryGrow(100)).isFalse();
        assertThat(budget.reservedBytes()).isZero();
        assertThat(budget.peakBytes()).isLessThanOrEqualTo(100);
    }

    @Test
    void growAsksTheReclaimerThenFailsWithDiagnostics() {
        MemoryReservation big = budget.newReservation("write-buffer pages");
        big.grow((1 << 20) - 100);
        List<Long> asked = new ArrayList<>();
        budget.setReclaimer(
                bytes -> {
                    asked.add(bytes);
                    return 0;
                });
        MemoryReservation small = budget.newReservation("writer[bucket=3]");
        assertThatThrownBy(() -> small.grow(4096))
                .isInstanceOfSatisfying(
                        ResourceExhaustedException.class,
                        e -> {
                            assertThat(e.resource()).isEqualTo(ResourceExhaustedException.Resource.MEMORY);
                            assertThat(e.requester()).isEqualTo("writer[bucket=3]");
                            assertThat(e.requestedBytes()).isEqualTo(4096);
                            assertThat(e.reservedBytes()).isEqualTo((1 << 20) - 100);
                            assertThat(e.capacityBytes()).isEqualTo(1 << 20);
                            assertThat(e.largestHolders())
                                    .containsExactly(new ResourceExhaustedException.Holder("write-buffer pages", (1 << 20) - 100));
                        })
                .hasMessage(
                        "memory exhausted: 'writer[bucket=3]' asked for 4096 bytes; 1048476 of 1048576 bytes are"
                                + " reserved, 100 free; largest holders: write-buffer pages=1048476; raise 'governance.memory.budget' (now 1m)");
        assertThat(asked).containsExactly(4096L);
        assertThat(small.bytes()).isZero();
        assertThat(budget.exhaustedCount()).isEqualTo(1);
    }

    @Test
    void growSucceedsWhenTheReclaimerMakesRoom() {
        MemoryReservation big = budget.newReservation("big");
        big.grow(1 << 20);
        budget.setReclaimer(
                bytes -> {
                    big.shrink(bytes);
                    return bytes;
                });
        MemoryReservation r = budget.newReservation("r");
        r.grow(8192);
        assertThat(r.bytes()).isEqualTo(8192);
        assertThat(budget.reservedBytes()).isEqualTo(1 << 20);
    }

    @Test
    void shrinkBeyondHoldingsIsRejected() {
        MemoryReservation r = budget.newReservation("r");
        r.grow(10);
        assertThatThrownBy(() -> r.shrink(11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'r' cannot shrink by 11 bytes; it holds 10");
        assertThatThrownBy(() -> r.tryGrow(-1)).hasMessage("bytes must not be negative: -1");
    }

    @Test
    void closeIsIdempotentAndReturnsEverything() {
        MemoryReservation r = budget.newReservation("r");
        r.grow(3000);
        r.close();
        r.close();
        assertThat(budget.reservedBytes()).isZero();
        assertThat(allocator.usedBytes()).isZero();
        assertThat(budget.holders()).isEmpty();
        assertThatThrownBy(() -> r.tryGrow(1))
                .isInstanceOf(GovernanceClosedException.class)
                .hasMessage("memory reservation 'r' is closed");
    }

    @Test
    void concurrentGrowAndShrinkNeverPassTheCapacity() throws Exception {
        int threads = 4;
        AtomicLong violations = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            Thread worker =
                    new Thread(
                            () -> {
                                Random random = new Random(seed);
                                MemoryReservation r = budget.newReservation("w" + seed);
                                try {
                                    start.await();
                                } catch (InterruptedException e) {
                                    return;
                                }
                                for (int i = 0; i < 20_000; i++) {
                                    long n = 1 + random.nextInt(1 << 17);
                                    if (random.nextBoolean() && r.tryGrow(n)) {
                                        if (budget.reservedBytes() > 1 << 20) {
                                            violations.incrementAndGet();
                                        }
                                    } else if (r.bytes() > 0) {
                                        r.shrink(Math.min(n, r.bytes()));
                                    }
                                }
                                r.close();
                            });
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(violations.get()).isZero();
        assertThat(budget.peakBytes()).as("the 1 MiB the allocator was made with").isLessThanOrEqualTo(1 << 20);
        assertThat(budget.reservedBytes()).isZero();
        assertThat(allocator.usedBytes()).isZero();
    }
}
