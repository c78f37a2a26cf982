package io.paimongov.reliability;

import io.paimongov.reliability.Fault.Outcome;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.data.InternalRow;

/**
 * One governed batch write of a workload in a {@link World}: open, write every row, prepare,
 * commit, close, on a writing thread of its own. A mid-write fault is applied by the cell's thread
 * while the writing thread waits between two rows (a non-interruptible spin, so an interrupt stays
 * set), which makes the point of every fault deterministic.
 *
 * <p>Not thread-safe: read its fields after {@link #run} returned.
 */
final class Attempt {

    /** A fault applied between two rows, by the cell's thread. */
    @FunctionalInterface
    interface MidWrite {
        void apply(Thread writer, ResourceContext context) throws Exception;
    }

    Outcome outcome;
    Throwable error;
    Throwable closeError;
    ResourceContext context;
    MetricsSnapshot metrics;
    boolean faultApplied;

    private Attempt() {}

    /**
     * Runs the write; {@code midWrite} (may be null) is applied before row {@code atRow}.
     *
     * @throws IllegalStateException when the write does not end within ten minutes
     */
    static Attempt run(World world, String name, GovernanceOptions options, List<InternalRow> rows, int atRow, MidWrite midWrite)
            throws Exception {
        Attempt attempt = new Attempt();
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch applied = new CountDownLatch(1);
        AtomicReference<Throwable> crash = new AtomicReference<>();
        Thread writer =
                new Thread(
                        () -> {
                            try {
                                attempt.write(world, name, options, rows, midWrite == null ? -1 : atRow, reached, applied);
                            } catch (Throwable t) {
                                crash.set(t);
                            }
                        },
                        "reliability-writer-" + name);
        writer.start();
        if (midWrite != null) {
            while (!reached.await(10, TimeUnit.MILLISECONDS)) {
                if (!writer.isAlive()) {
                    break;
                }
            }
            if (reached.getCount() == 0) {
                try {
                    midWrite.apply(writer, attempt.context);
                    attempt.faultApplied = true;
                } finally {
                    applied.countDown();
                }
            }
        }
        writer.join(TimeUnit.MINUTES.toMillis(10));
        if (writer.isAlive()) {
            throw new IllegalStateException("write '" + name + "' did not end within 10 minutes");
        }
        if (crash.get() != null) {
            throw new IllegalStateException("the writing thread itself failed", crash.get());
        }
        return attempt;
    }

    private void write(
            World world, String name, GovernanceOptions options, List<InternalRow> rows, int atRow, CountDownLatch reached, CountDownLatch applied) {
        GovernedTableWrite write;
        try {
            context = ResourceContext.open(name, world.provider, options, world.engine().environment());
            write = GovernedTableWrite.batch(world.table, context);
        } catch (RuntimeException e) {
            end(Outcome.FAILED, e);
            return;
        }
        try {
            for (int i = 0; i < rows.size(); i++) {
                if (i == atRow) {
                    reached.countDown();
                    while (applied.getCount() > 0) {
                        Thread.onSpinWait();
                    }
                }
                write.write(rows.get(i));
            }
            PreparedCommit prepared = write.prepareCommit();
            prepared.commit();
            end(Outcome.COMMITTED, null);
        } catch (WriteCancelledException e) {
            end(Outcome.CANCELLED, e);
        } catch (Throwable t) {
            end(Outcome.FAILED, t);
        } finally {
            try {
                write.close();
            } catch (Throwable t) {
                closeError = t;
            }
            // An interrupt the write did not consume must not leak into the next attempt's checks.
            Thread.interrupted();
        }
    }

    private void end(Outcome outcome, Throwable error) {
        this.outcome = outcome;
        this.error = error;
    }

    /** The outcome and its error in one line. */
    String describe() {
        return outcome + (error == null ? "" : ": " + Errors.summary(error)) + (closeError == null ? "" : "; close threw " + Errors.summary(closeError));
    }

    /** The context's final snapshot; null when the context never opened. */
    MetricsSnapshot finalMetrics() {
        return context == null ? null : context.snapshot();
    }
}
