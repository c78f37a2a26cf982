package io.paimongov.reliability;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.Set;

/**
 * The faults of the matrix: where each strikes, and what the write may answer. Every fault runs
 * against every {@link Allocator}; {@code docs/reliability.md} describes each.
 */
enum Fault {
    ALLOCATOR_THROWS("allocator-throws", "the allocator throws an unexpected exception on a page allocation", Set.of(Outcome.FAILED), 0, IllegalStateException.class),
    ALLOCATOR_GRANTS_NOTHING(
            "allocator-grants-nothing",
            "mid-write, another consumer takes all the engine's free memory, so the allocator grants nothing more",
            Set.of(Outcome.COMMITTED, Outcome.FAILED),
            0,
            ResourceExhaustedException.class),
    SPILL_BUDGET_EXCEEDED(
            "spill-budget-exceeded",
            "the write spills more than governance.spill.max-bytes (1m)",
            Set.of(Outcome.FAILED),
            0,
            ResourceExhaustedException.class),
    SPILL_IO_ERROR(
            "spill-io-error",
            "mid-write, the spill scope vanishes under the I/O manager and a file takes its place: the next spill-file create, the"
                    + " scope's making or a run read fails",
            Set.of(Outcome.FAILED),
            0),
    DATA_FILE_IO_ERROR("data-file-io-error", "the second data file's write fails after 1 KiB (faulty:// FileIO)", Set.of(Outcome.FAILED), 0),
    COMMIT_FAILS("commit-fails", "every snapshot write fails before the snapshot lands; Paimon retries twice, then throws", Set.of(Outcome.FAILED), 0),
    COMMIT_LANDS_THEN_THROWS(
            "commit-lands-then-throws",
            "two snapshot writes fail, the third lands and then fails: Paimon throws although the snapshot is in the table",
            Set.of(Outcome.COMMITTED),
            0),
    THREAD_INTERRUPTED("thread-interrupted", "another thread interrupts the writing thread mid-write", Set.of(Outcome.CANCELLED), 1),
    ENGINE_CANCELS("engine-cancels", "the engine fires its cancel signal from another thread mid-write", Set.of(Outcome.CANCELLED), 1),
    PROCESS_KILLED(
            "process-killed",
            "a child JVM writing with spill on disk is killed with SIGKILL; the next write on the same dirs sweeps its scope",
            Set.of(Outcome.KILLED),
            0);

    final String id;
    final String description;
    final Set<Outcome> allowed;
    final long cancellations;
    /** What the caller must get when the write fails; null when any error will do. */
    final Class<? extends Throwable> failsWith;

    Fault(String id, String description, Set<Outcome> allowed, long cancellations) {
        this(id, description, allowed, cancellations, null);
    }

    Fault(String id, String description, Set<Outcome> allowed, long cancellations, Class<? extends Throwable> failsWith) {
        this.id = id;
        this.description = description;
        this.allowed = allowed;
        this.cancellations = cancellations;
        this.failsWith = failsWith;
    }

    /** Whether a write that ended with {@code outcome} and {@code error} answered this fault as it may. */
    boolean allows(Outcome outcome, Throwable error) {
        return allowed.contains(outcome) && (outcome != Outcome.FAILED || failsWith == null || failsWith.isInstance(error));
    }

    /** The allowed outcomes in words. */
    String expectation() {
        return "one of " + allowed + (failsWith == null ? "" : ", a failure as " + failsWith.getSimpleName());
    }

    /** How a write ended. */
    enum Outcome {
        COMMITTED,
        FAILED,
        CANCELLED,
        KILLED
    }
}
