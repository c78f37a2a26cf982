package io.paimongov.benchmarks.cancel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * What the harness learns from inside one job of {@link JobCancel}, kept in this JVM (the
 * MiniCluster's task manager and job master run here): the rows {@link SlotProbe} passed to the
 * sink, the memory managers of the job's slots, and what {@link MemoryCheckHook} read from them when
 * the job was cancelled.
 *
 * <p>Thread-safe: the probes write from task threads, the hook from the job master's main thread,
 * the harness reads.
 */
final class JobProbe {

    private static final ConcurrentMap<JobID, JobProbe> PROBES = new ConcurrentHashMap<>();

    private final AtomicLong rows = new AtomicLong();
    private final Set<MemoryManager> managers = ConcurrentHashMap.newKeySet();
    private volatile MemoryCheck atCancel;

    /**
     * The slots' managed memory when the job master declared the job cancelled.
     *
     * @param managers the memory managers seen (one per slot the job's probes ran in)
     * @param back how many of them had all their memory available and were not shut down yet
     * @param missingBytes the sum of size - available over them
     */
    record MemoryCheck(int managers, int back, long missingBytes) {

        /** Every slot's managed memory was back (and there was at least one slot to look at). */
        boolean allBack() {
            return managers > 0 && back == managers;
        }
    }

    private JobProbe() {}

    /** The probe of job {@code id}, made on first use. */
    static JobProbe of(JobID id) {
        return PROBES.computeIfAbsent(id, k -> new JobProbe());
    }

    /** Drops job {@code id}'s probe (its slots' managers are not kept after the measure). */
    static void forget(JobID id) {
        PROBES.remove(id);
    }

    void rowPassed() {
        rows.incrementAndGet();
    }

    long rows() {
        return rows.get();
    }

    void slot(MemoryManager manager) {
        managers.add(manager);
    }

    /**
     * Reads every slot's memory manager: a manager already shut down counts as not back, since
     * shutting down frees the pages a leak held and the check could not see them any more.
     */
    void checkMemory() {
        int back = 0;
        long missing = 0;
        for (MemoryManager m : managers) {
            long gap = m.getMemorySize() - m.availableMemory();
            missing += gap;
            if (!m.isShutdown() && gap == 0) {
                back++;
            }
        }
        atCancel = new MemoryCheck(managers.size(), back, missing);
    }

    /** The check made when the job was cancelled; null when the hook did not run. */
    MemoryCheck atCancel() {
        return atCancel;
    }
}
