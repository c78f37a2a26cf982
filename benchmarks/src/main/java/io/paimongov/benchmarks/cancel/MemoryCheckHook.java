package io.paimongov.benchmarks.cancel;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobStatusHook;

/**
 * Reads the job's slots' managed memory at the moment the job master declares the job cancelled
 * ({@link JobProbe#checkMemory}). The job master calls a status hook on its main thread while it
 * moves the job to {@code CANCELED}, after every task reported its final state (a task reports
 * after its operators closed) and before the job master releases the slots, whose release shuts
 * the memory managers down and frees whatever a leak still held. Read at any later moment, a leak
 * would be gone.
 *
 * <p>Serialized with the job; runs in this JVM (the MiniCluster's job master), so it reaches the
 * probe the job's operators filled.
 */
final class MemoryCheckHook implements JobStatusHook {

    private static final long serialVersionUID = 1L;

    @Override
    public void onCreated(JobID jobId) {}

    @Override
    public void onFinished(JobID jobId) {}

    @Override
    public void onFailed(JobID jobId, Throwable throwable) {}

    @Override
    public void onCanceled(JobID jobId) {
        JobProbe.of(jobId).checkMemory();
    }
}
