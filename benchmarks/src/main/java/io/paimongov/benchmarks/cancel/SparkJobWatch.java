package io.paimongov.benchmarks.cancel;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.TaskKilled;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * Spark's own account of one job group's job, from its listener bus: when the job ended
 * ({@code SparkListenerJobEnd.time()}) and, for every task the job launched, when it ended ({@code
 * TaskInfo.finishTime()} of its {@code SparkListenerTaskEnd}) and whether it ended killed ({@code
 * TaskKilled}). Both times are the driver's clock ({@code System.currentTimeMillis()} in local
 * mode), the clock the harness reads before its cancel call; the bus delivers the events later,
 * which does not move their times.
 *
 * <p>One job group at a time ({@link #expect}). Thread-safe: the bus thread writes, the harness
 * waits and reads, under this object's monitor.
 */
final class SparkJobWatch extends SparkListener {

    /**
     * How the watched job ended.
     *
     * @param jobEndMillis the job's end event time
     * @param lastTaskEndMillis the latest end time over its tasks
     * @param tasks tasks it launched
     * @param killed of them, tasks that ended with {@code TaskKilled}
     */
    record Ended(long jobEndMillis, long lastTaskEndMillis, int tasks, int killed) {}

    private String group;
    private final Set<Integer> stages = new HashSet<>();
    private final Set<Long> running = new HashSet<>();
    private final Map<Long, Long> endTimes = new HashMap<>();
    private int killed;
    private long jobEnd = -1;
    private int jobId = -1;

    /** Watches the next job of {@code jobGroup}, forgetting the previous one. */
    synchronized void expect(String jobGroup) {
        group = jobGroup;
        stages.clear();
        running.clear();
        endTimes.clear();
        killed = 0;
        jobEnd = -1;
        jobId = -1;
    }

    @Override
    public synchronized void onJobStart(SparkListenerJobStart start) {
        String g = start.properties() == null ? null : start.properties().getProperty("spark.jobGroup.id");
        if (g != null && g.equals(group) && jobId < 0) {
            jobId = start.jobId();
            scala.jdk.javaapi.CollectionConverters.asJava(start.stageIds()).forEach(id -> stages.add((Integer) id));
        }
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart start) {
        if (stages.contains(start.stageId())) {
            running.add(start.taskInfo().taskId());
        }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        if (stages.contains(end.stageId())) {
            running.remove(end.taskInfo().taskId());
            endTimes.put(end.taskInfo().taskId(), end.taskInfo().finishTime());
            if (end.reason() instanceof TaskKilled) {
                killed++;
            }
            notifyAll();
        }
    }

    @Override
    public synchronized void onJobEnd(SparkListenerJobEnd end) {
        if (end.jobId() == jobId) {
            jobEnd = end.time();
            notifyAll();
        }
    }

    /** Waits until the job ended and none of its launched tasks is running. */
    synchronized Ended awaitEnd(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (jobEnd < 0 || !running.isEmpty() || endTimes.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("job group " + group + " did not end within " + patience + " (job end "
                        + jobEnd + ", tasks still running " + running + ")");
            }
            wait(Math.max(1, left / 1_000_000));
        }
        long last = endTimes.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        return new Ended(jobEnd, last, endTimes.size(), killed);
    }
}
