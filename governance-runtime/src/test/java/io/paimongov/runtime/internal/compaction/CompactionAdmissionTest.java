package io.paimongov.runtime.internal.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.TestAllocators;
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

    /** A task's {@code acquire}, on a thread of its own as on a compaction thread. */
    private record Waiter(Thread thread, AtomicReference<CompactionAdmission.Lease> lease, CountDownLatch started) {
        static Waiter start(CompactionAdmission admission) {
            AtomicReference<CompactionAdmission.Lease> lease = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread t = new Thread(() -> {
                try {
                    lease.set(admission.acquire(null, () -> {}));
                    started.countDown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            return new Waiter(t, lease, started);
        }

        /** Waits until the task holds its memory, then gives it back and joins the thread. */
        void finish() throws InterruptedException {
            assertThat(started.await(5, TimeUnit.SECONDS)).as("the task got its memory").isTrue();
            lease.get().close();
            thread.join();
        }
    }

    /** A task started on its own thread, once it waits for memory. */
    private static Waiter waitingTask(CompactionAdmission admission) throws InterruptedException {
        Waiter task = Waiter.start(admission);
        awaitWaiting(admission, 1);
        return task;
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
        CompactionAdmission.Lease first = admission.acquire(null, () -> {});
        assertThat(budget.reservedBytes()).isEqualTo(256 << 10);
        CompactionAdmission.Lease second = admission.acquire(null, () -> {});
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
        CompactionAdmission.Lease first = admission.acquire(null, () -> {});
        Waiter second = waitingTask(admission);
        assertThat(second.started().getCount()).as("the second task waits: no room for its memory").isEqualTo(1);
        // 400 KiB of pages and the first task's 512 KiB; the second's 512 KiB would pass the 1 MiB.
        assertThat(budget.peakBytes()).isEqualTo((400 << 10) + (512 << 10));
        first.close();
        second.finish();
        assertThat(admission.waits()).isEqualTo(1);
        assertThat(admission.waitingTasks()).isZero();
    }

    @Test
    void theWritingThreadMakesRoomAndHandsItToTheWaitingTask() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        MemoryReservation pages = budget.newReservation("write-buffer pages");
        pages.grow(900 << 10);
        Waiter task = waitingTask(admission);
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
        task.finish();
        assertThat(budget.reservedBytes()).isEqualTo(pages.bytes());
    }

    @Test
    void theWritingThreadStopsServingWhenNothingCanBeFreed() throws Exception {
        CompactionAdmission admission = admission(512 << 10);
        MemoryReservation pinned = budget.newReservation("writers");
        pinned.grow(900 << 10);
        Waiter task = waitingTask(admission);
        AtomicInteger calls = new AtomicInteger();
        admission.serveWaiting(bytes -> {
            calls.incrementAndGet();
            return 0;
        });
        assertThat(calls.get()).as("one try, then back to the write").isEqualTo(1);
        assertThat(admission.waitingTasks()).isEqualTo(1);
        pinned.close();
        task.finish();
    }

    /** One task running, write-buffer pages of {@code pageBytes}, and a second task waiting for memory. */
    private record RunningAndWaiting(CompactionAdmission.Lease running, MemoryReservation pages, Waiter waiting) {}

    private RunningAndWaiting runningAndWaiting(CompactionAdmission admission, long pageBytes) throws InterruptedException {
        CompactionAdmission.Lease running = admission.acquire(null, () -> {});
        MemoryReservation pages = budget.newReservation("write-buffer pages");
        pages.grow(pageBytes);
        return new RunningAndWaiting(running, pages, waitingTask(admission));
    }

    /**
     * Tasks that hold half the budget with the next one make it wait for their memory rather than
     * have the writing thread spill for it; once they give it back, it starts from free memory.
     */
    @Test
    void theWritingThreadDoesNotSpillForATaskWhileTasksHoldHalfTheBudget() throws Exception {
        CompactionAdmission admission = admission(300 << 10);
        RunningAndWaiting tasks = runningAndWaiting(admission, 600 << 10);
        // 300 KiB held; with the second task's 300 KiB the tasks would hold 600 KiB of the 1 MiB.
        admission.serveWaiting(bytes -> {
            throw new AssertionError("asked to spill " + bytes + " bytes while tasks would hold more than half the budget");
        });
        assertThat(admission.waitingTasks()).isEqualTo(1);
        assertThat(tasks.pages().bytes()).as("the write buffers keep their memory").isEqualTo(600 << 10);
        tasks.running().close();
        tasks.waiting().finish();
        assertThat(budget.reservedBytes()).isEqualTo(tasks.pages().bytes());
    }

    /** Under half the budget with it, a task still gets the room the writing thread makes. */
    @Test
    void theWritingThreadSpillsForATaskThatKeepsTasksUnderHalfTheBudget() throws Exception {
        CompactionAdmission admission = admission(200 << 10);
        RunningAndWaiting tasks = runningAndWaiting(admission, 800 << 10);
        List<Long> asked = new ArrayList<>();
        admission.serveWaiting(bytes -> {
            asked.add(bytes);
            tasks.pages().shrink(bytes);
            return bytes;
        });
        // 1 MiB - 200 KiB - 800 KiB = 24 KiB free; the task needs 200 KiB; together they hold 400 KiB.
        assertThat(asked).containsExactly((200L << 10) - ((1L << 20) - (1000L << 10)));
        tasks.waiting().finish();
        tasks.running().close();
        assertThat(budget.reservedBytes()).isEqualTo(tasks.pages().bytes());
    }

    /**
     * A task the writing thread granted memory to but that was cancelled before it saw the grant
     * holds nothing afterwards: the next task, with no task running, gets the room the writing
     * thread makes. The grant and the cancel are made under the admission's monitor, so the task
     * meets the cancel before the grant; should it have passed its check just before (a window of a
     * few instructions), it gets a lease instead and the round is repeated.
     */
    @Test
    void aTaskCancelledAfterItsGrantLeavesNoMemoryCountedAsHeld() throws Exception {
        CompactionAdmission admission = admission(300 << 10);
        MemoryReservation pages = budget.newReservation("write-buffer pages");
        pages.grow(900 << 10);
        boolean cancelledAfterGrant = false;
        for (int round = 0; round < 20 && !cancelledAfterGrant; round++) {
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread task = new Thread(() -> {
                try {
                    outcome.set(admission.acquire(null, () -> {
                        if (cancelled.get()) {
                            throw new WriteCancelledException("test");
                        }
                    }));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            task.start();
            awaitWaiting(admission, 1);
            synchronized (admission) {
                cancelled.set(true);
                admission.serveWaiting(bytes -> {
                    pages.shrink(bytes);
                    return bytes;
                });
            }
            task.join(5_000);
            assertThat(task.isAlive()).isFalse();
            if (outcome.get() instanceof CompactionAdmission.Lease lease) {
                lease.close();
            } else {
                assertThat(outcome.get()).isInstanceOf(WriteCancelledException.class);
                cancelledAfterGrant = true;
            }
            pages.grow((900 << 10) - pages.bytes());
        }
        assertThat(cancelledAfterGrant).as("a task was cancelled after its grant").isTrue();
        assertThat(budget.reservedBytes()).isEqualTo(pages.bytes());

        Waiter next = waitingTask(admission);
        List<Long> asked = new ArrayList<>();
        admission.serveWaiting(bytes -> {
            asked.add(bytes);
            pages.shrink(bytes);
            return bytes;
        });
        assertThat(asked).as("no task runs, so the writing thread makes room").isNotEmpty();
        next.finish();
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
        CompactionAdmission.Lease first = admission.acquire(null, () -> {});
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                admission.acquire(null, () -> {
                                    if (cancelled.get()) {
                                        throw new WriteCancelledException("test");
                                    }
                                });
                            } catch (Throwable t) {
                                error.set(t);
                            }
                        });
        waiter.start();
        // The cancel comes once the task waits for memory, not after a guessed pause: otherwise the
        // task could meet the cancel before it ever waited.
        awaitWaiting(admission, 1);
        cancelled.set(true);
        waiter.join(5_000);
        assertThat(waiter.isAlive()).as("the waiting task ended").isFalse();
        assertThat(error.get()).isInstanceOf(WriteCancelledException.class);
        assertThat(admission.waits()).as("the task waited before it was cancelled").isEqualTo(1);
        assertThat(admission.waitingTasks()).isZero();
        first.close();
        assertThat(budget.reservedBytes()).isZero();
        assertThatThrownBy(() -> { throw error.get(); }).hasMessage("write cancelled: test");
    }

    /**
     * Each task reserves what the sizing function gives for it, also above what the write keeps
     * room for (a task reading another writer's larger row groups); a smaller task starts where a
     * larger one would wait, and what the sizing function throws fails the acquire with nothing held.
     */
    @Test
    void eachTaskReservesItsOwnSize() throws Exception {
        CompactionAdmission sized = new CompactionAdmission(budget, task -> {
            if ((Long) task < 0) {
                throw new IllegalStateException("cannot be given");
            }
            return (Long) task;
        }, () -> 0);
        CompactionAdmission.Lease small = sized.acquire(100L << 10, () -> {});
        assertThat(budget.reservedBytes()).isEqualTo(100 << 10);
        CompactionAdmission.Lease large = sized.acquire(700L << 10, () -> {});
        assertThat(budget.reservedBytes()).as("what it asks, uncut").isEqualTo((100 << 10) + (700 << 10));
        // 1 MiB budget: 800 KiB held, so a 300 KiB task would wait, a 200 KiB one starts.
        CompactionAdmission.Lease fits = sized.acquire(200L << 10, () -> {});
        assertThat(budget.reservedBytes()).isEqualTo((100 << 10) + (700 << 10) + (200 << 10));
        assertThatThrownBy(() -> sized.acquire(-1L, () -> {})).hasMessage("cannot be given");
        assertThat(budget.reservedBytes()).isEqualTo((100 << 10) + (700 << 10) + (200 << 10));
        assertThat(sized.waits()).isZero();
        small.close();
        large.close();
        fits.close();
        assertThat(budget.reservedBytes()).isZero();
    }
}
