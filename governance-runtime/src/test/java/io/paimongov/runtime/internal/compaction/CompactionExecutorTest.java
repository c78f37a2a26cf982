package io.paimongov.runtime.internal.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.Reclaimer;
import io.paimongov.runtime.internal.memory.TestAllocators;
import io.paimongov.spi.EngineResources.CompactionThreads;
import java.time.Duration;
import io.paimongov.spi.WriteCancelledException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CompactionExecutorTest {

    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicLong completed = new AtomicLong();

    private CompactionExecutor executor() {
        return new CompactionExecutor(
                CompactionThreads.of(Thread::new, 4),
                () -> {
                    if (cancelled.get()) {
                        throw new WriteCancelledException("test");
                    }
                },
                nanos -> completed.incrementAndGet());
    }

    @Test
    void runsTasksOneAtATimeAndCountsThem() throws Exception {
        CompactionExecutor executor = executor();
        CountDownLatch release = new CountDownLatch(1);
        Future<?> first = executor.submit(() -> release.await(10, TimeUnit.SECONDS));
        Future<Integer> second = executor.submit(() -> 2);
        while (executor.runningTasks() == 0) {
            Thread.onSpinWait();
        }
        assertThat(executor.runningTasks()).isEqualTo(1);
        assertThat(executor.queuedTasks()).isEqualTo(1);
        release.countDown();
        first.get();
        assertThat(second.get()).isEqualTo(2);
        assertThat(completed).hasValue(2);
        assertThat(executor.stop(1000)).isTrue();
    }

    /**
     * The writer's deadlock Paimon would hit without it: the writing thread waits for a task's
     * result while the task waits for memory that the writer's buffers hold. The waiting thread
     * spills for the task (here: shrinks the buffers' reservation) and gets its result.
     */
    @Test
    void aThreadWaitingForAResultMakesRoomForTheTaskItWaitsFor() throws Exception {
        MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 1 << 20));
        MemoryReservation buffers = budget.newReservation("write buffers");
        buffers.grow(1 << 20);
        CompactionExecutor executor = executor();
        AtomicLong asked = new AtomicLong();
        executor.configure(1, 1, 10_000, new CompactionAdmission(budget, 256 << 10, () -> 0), bytes -> {
            asked.addAndGet(bytes);
            buffers.shrink(bytes);
            return bytes;
        });
        AtomicLong reservedWhileRunning = new AtomicLong();
        Future<Integer> task = executor.submit(() -> {
            reservedWhileRunning.set(budget.reservedBytes() - buffers.bytes());
            return 7;
        });
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> task.get())).isEqualTo(7);
        assertThat(asked).as("exactly the task's memory was asked for").hasValue(256 << 10);
        assertThat(reservedWhileRunning).as("the task ran on its own reservation").hasValue(256 << 10);
        assertThat(budget.reservedBytes()).isEqualTo(buffers.bytes());
        assertThat(executor.stop(1000)).isTrue();
    }

    @Test
    void aCancelledWriteFailsTheTaskAndWakesItsWaiter() {
        CompactionExecutor executor = executor();
        cancelled.set(true);
        Future<Integer> task = executor.submit(() -> 1);
        assertThatThrownBy(task::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(WriteCancelledException.class);
        assertThat(completed).hasValue(0);
        executor.stop(1000);
    }

    @Test
    void abortWakesThreadsWaitingOnRunningAndQueuedTasks() throws Exception {
        CompactionExecutor executor = executor();
        Future<?> running = submitSleeperAndWaitForItToRun(executor);
        Future<?> queued = executor.submit(() -> 1);
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                queued.get();
                            } catch (Exception expected) {
                                // woken: that is the point
                            }
                        });
        waiter.start();
        executor.abort();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).as("the waiter on a queued task woke").isFalse();
        assertThatThrownBy(running::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(executor.queuedTasks()).isZero();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void stopInterruptsRunningTasksAndCancelsQueuedOnes() throws Exception {
        CompactionExecutor executor = executor();
        Future<?> running = submitSleeperAndWaitForItToRun(executor);
        Future<?> queued = executor.submit(() -> 1);
        assertThat(executor.stop(5000)).isTrue();
        assertThat(running.isDone()).isTrue();
        assertThat(queued.isCancelled()).isTrue();
        assertThat(executor.queuedTasks()).isZero();
    }

    /**
     * Paimon cancels a bucket's compaction and then, once {@code get()} returns, closes the lookup
     * files the task reads: the task's body must have stopped by then. The body here, interrupted,
     * goes on until the test lets it; the waiter notes whether the body had stopped when its {@code
     * get()} threw.
     */
    @Test
    void getOfACancelledRunningTaskReturnsOnlyOnceItsBodyStopped() throws Exception {
        CompactionExecutor executor = executor();
        executor.configure(1, 1, 30_000, null, Reclaimer.NONE);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch letItStop = new CountDownLatch(1);
        AtomicBoolean bodyStopped = new AtomicBoolean();
        Future<?> task = executor.submit(() -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
                letItStop.await();
            }
            bodyStopped.set(true);
            return null;
        });
        started.await();
        task.cancel(true);
        interrupted.await();
        AtomicBoolean stoppedWhenGetThrew = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try {
                task.get();
            } catch (Exception expected) {
                stoppedWhenGetThrew.set(bodyStopped.get());
            }
        });
        waiter.start();
        while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.getState() != Thread.State.WAITING
                && waiter.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait();
        }
        letItStop.countDown();
        waiter.join();
        assertThat(stoppedWhenGetThrew).as("the body had stopped when get() threw").isTrue();
        assertThat(executor.stop(5000)).isTrue();
    }

    /** Submits a task that sleeps a minute, and returns once it runs. */
    private static Future<?> submitSleeperAndWaitForItToRun(CompactionExecutor executor) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Future<?> running =
                executor.submit(
                        () -> {
                            started.countDown();
                            Thread.sleep(60_000);
                            return null;
                        });
        started.await();
        return running;
    }
}
