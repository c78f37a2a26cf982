package io.paimongov.runtime.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.memory.TestAllocators;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CompactionAdmissionTest {

    private final MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 1 << 20));

    private CompactionAdmission admission(long perTask) {
        MemoryReservation base = budget.newReservation("compaction (one task)");
        base.grow(perTask);
        return new CompactionAdmission(budget, perTask, base, () -> 0);
    }

    @Test
    void theFirstTaskRunsOnTheBaseReservationAndOthersReserveTheirOwn() throws Exception {
        CompactionAdmission admission = admission(256 << 10);
        CompactionAdmission.Lease first = admission.acquire(() -> {});
        assertThat(budget.reservedBytes()).isEqualTo(256 << 10);
        CompactionAdmission.Lease second = admission.acquire(() -> {});
        assertThat(budget.reservedBytes()).isEqualTo(512 << 10);
        second.close();
        first.close();
        assertThat(budget.reservedBytes()).isEqualTo(256 << 10);
        assertThat(admission.waits()).isZero();
        admission.close();
        assertThat(budget.reservedBytes()).isZero();
    }

    @Test
    void aTaskWaitsWhileTheBudgetIsShortAndStartsWhenMemoryComesBack() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        budget.newReservation("write-buffer pages").grow(400 << 10);
        CompactionAdmission.Lease first = admission.acquire(() -> {});
        AtomicReference<CompactionAdmission.Lease> second = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                second.set(admission.acquire(() -> {}));
                                started.countDown();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
        waiter.start();
        Thread.sleep(100);
        assertThat(started.getCount()).as("the second task waits: no room for its memory").isEqualTo(1);
        assertThat(budget.peakBytes()).isLessThanOrEqualTo(budget.capacityBytes());
        first.close();
        assertThat(started.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(admission.waits()).isEqualTo(1);
        second.get().close();
        waiter.join();
    }

    @Test
    void aWaitingTaskStopsWhenTheWriteIsCancelled() throws Exception {
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
        first.close();
        assertThatThrownBy(() -> { throw error.get(); }).hasMessage("write cancelled: test");
    }
}
