package io.paimongov.runtime.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.memory.TestAllocators;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CompactionAdmissionTest {

    private final MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 1 << 20));

    private CompactionAdmission admission(long perTask) {
        return new CompactionAdmission(budget, perTask, () -> 0);
    }

    /** Starts {@code admission.acquire} on its own thread, as a compaction thread does. */
    private static Thread acquiring(CompactionAdmission admission, AtomicReference<CompactionAdmission.Lease> lease,
            CountDownLatch started) {
        Thread t = new Thread(() -> {
            try {
                lease.set(admission.acquire(() -> {}));
                started.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        return t;
    }

    private static void awaitWaiting(CompactionAdmission admission, int tasks) throws InterruptedException {
        for (int i = 0; i < 500 && admission.waitingTasks() < tasks; i++) {
            Thread.sleep(10);
        }
        assertThat(admission.waitingTasks()).as("tasks waiting for memory").isEqualTo(tasks);
    }

    @Test
    void aTaskReservesItsMemoryOnlyWhileItRuns() throws Exception {
        CompactionAdmission admission = admission(256 << 10);
        assertThat(budget.reservedBytes()).as("nothing is held for compaction before a task starts").isZero();
        CompactionAdmission.Lease first = admission.acquire(() -> {});
        assertThat(budget.reservedBytes()).isEqualTo(256 << 10);
        CompactionAdmission.Lease second = admission.acquire(() -> {});
        assertThat(budget.reservedBytes()).isEqualTo(512 << 10);
        second.close();
        first.close();
        assertThat(budget.reservedBytes()).isZero();
        assertThat(admission.waits()).isZero();
    }

    @Test
    void aTaskWaitsWhileTheBudgetIsShortAndStartsWhenMemoryComesBack() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        budget.newReservation("write-buffer pages").grow(400 << 10);
        CompactionAdmission.Lease first = admission.acquire(() -> {});
        AtomicReference<CompactionAdmission.Lease> second = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = acquiring(admission, second, started);
        awaitWaiting(admission, 1);
        assertThat(started.getCount()).as("the second task waits: no room for its memory").isEqualTo(1);
        assertThat(budget.peakBytes()).isLessThanOrEqualTo(budget.capacityBytes());
        first.close();
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(admission.waits()).isEqualTo(1);
        assertThat(admission.waitingTasks()).isZero();
        second.get().close();
        waiter.join();
    }

    @Test
    void theWritingThreadMakesRoomAndHandsItToTheWaitingTask() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        MemoryReservation pages = budget.newReservation("write-buffer pages");
        pages.grow(900 << 10);
        AtomicReference<CompactionAdmission.Lease> lease = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = acquiring(admission, lease, started);
        awaitWaiting(admission, 1);
        List<Long> asked = new ArrayList<>();
        admission.serveWaiting(bytes -> {
            asked.add(bytes);
            long freed = Math.min(bytes, pages.bytes());
            pages.shrink(freed);
            return freed;
        });
        // 1 MiB - 900 KiB free; the task needs 512 KiB: 388 KiB short.
        assertThat(asked).containsExactly((512L << 10) - ((1L << 20) - (900L << 10)));
        assertThat(budget.reservedBytes()).as("the freed memory went to the task, not back to the pool")
                .isEqualTo(pages.bytes() + (512L << 10));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        lease.get().close();
        waiter.join();
        assertThat(budget.reservedBytes()).isEqualTo(pages.bytes());
    }

    @Test
    void theWritingThreadStopsServingWhenNothingCanBeFreed() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        MemoryReservation pinned = budget.newReservation("writers");
        pinned.grow(900 << 10);
        AtomicReference<CompactionAdmission.Lease> lease = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = acquiring(admission, lease, started);
        awaitWaiting(admission, 1);
        AtomicInteger calls = new AtomicInteger();
        admission.serveWaiting(bytes -> {
            calls.incrementAndGet();
            return 0;
        });
        assertThat(calls.get()).as("one try, then back to the write").isEqualTo(1);
        assertThat(admission.waitingTasks()).isEqualTo(1);
        pinned.close();
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        lease.get().close();
        waiter.join();
    }

    @Test
    void servingWithNoTaskWaitingFreesNothing() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        admission.serveWaiting(bytes -> {
            throw new AssertionError("asked to free " + bytes + " bytes with no task waiting");
        });
        assertThat(budget.reservedBytes()).isZero();
    }

    @Test
    void aWaitingTaskStopsWhenTheWriteIsCancelledAndLeavesNothingReserved() throws Exception {
        CompactionAdmission admission = admission(700 << 10);
        CompactionAdmission.Lease first = admission.acquire(() -> {});
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                admission.acquire(() -> {
                                    if (cancelled.get()) {
                                        throw new WriteCancelledException("test");
                                    }
                                });
                            } catch (Throwable t) {
                                error.set(t);
                            }
                        });
        waiter.start();
        Thread.sleep(50);
        cancelled.set(true);
        waiter.join(5_000);
        assertThat(error.get()).isInstanceOf(WriteCancelledException.class);
        assertThat(admission.waitingTasks()).isZero();
        first.close();
        assertThat(budget.reservedBytes()).isZero();
        assertThatThrownBy(() -> { throw error.get(); }).hasMessage("write cancelled: test");
    }
}
