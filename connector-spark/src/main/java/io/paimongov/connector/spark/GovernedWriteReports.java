package io.paimongov.connector.spark;

import io.paimongov.spark.SparkWriteAccumulators.Field;
import io.paimongov.spark.SparkWriteAccumulators.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * The governance report of the Spark jobs an application runs in-process (a CLI running statements,
 * an engine embedding Spark): a {@link SparkListener} that collects, per Spark job, each task's
 * update of the {@code paimonGovernance.*} accumulators every governed write of this module adds
 * its final snapshot to, and sums them into an immutable {@link GovernedWriteReport}.
 *
 * <pre>{@code
 * GovernedWriteReports reports = GovernedWriteReports.register(spark);
 * GovernedWriteReports.Mark mark = reports.mark(Duration.ofSeconds(30));
 * spark.sql("INSERT INTO gov.db.t SELECT ...");
 * GovernedWriteReport report = reports.since(mark, Duration.ofSeconds(30));
 * // report.writes(), report.budgetBytes(), report.peakReservedBytes(), report.spillBytes(), ...
 * }</pre>
 *
 * <p>A statement's write is one Spark job (or a few, with the jobs Spark plans for it); a
 * micro-batch of a streaming query is one job. Tasks are attributed to the job that started their
 * stage first; tasks of jobs that started before the listener was registered are not counted.
 *
 * <p>Spark delivers listener events asynchronously: {@link #mark} and the reads wait, up to the
 * given time, until Spark's listener bus has delivered every event posted so far (Spark's {@code
 * private[spark]} {@code LiveListenerBus.waitUntilEmpty}, callable from Java, not a stable API).
 * So call them after the statement returned, from any thread but a listener's.
 *
 * <p>Memory: one small entry per job and one per stage, for the last {@value #RETAINED} jobs and
 * {@value #RETAINED_STAGES} stages; older ones are dropped (a report over more jobs than that has
 * only the last ones).
 *
 * <p><b>Thread-safety:</b> thread-safe; the listener callbacks run on Spark's listener thread, the
 * reads on any other. Never throws from a callback.
 */
public final class GovernedWriteReports extends SparkListener implements AutoCloseable {

    static final int RETAINED = 10_000;
    static final int RETAINED_STAGES = 100_000;
    /** Spark's local property of a job group ({@code SparkContext.setJobGroup}). */
    private static final String JOB_GROUP = "spark.jobGroup.id";
    private static final Map<String, Field> FIELDS = new HashMap<>();

    static {
        for (Field field : Field.values()) {
            FIELDS.put(field.accumulatorName(), field);
        }
    }

    /** Where a later {@link #since} starts: after the jobs started before the mark. */
    public record Mark(int lastJobId) {}

    private final SparkContext spark;
    private final Map<Integer, Integer> jobOfStage = bounded(RETAINED_STAGES);
    private final Map<Integer, Job> jobs = bounded(RETAINED);
    private int lastJobId = -1;

    private GovernedWriteReports(SparkContext spark) {
        this.spark = spark;
    }

    /** A listener added to {@code spark}; {@link #close} removes it. */
    public static GovernedWriteReports register(SparkContext spark) {
        GovernedWriteReports reports = new GovernedWriteReports(Objects.requireNonNull(spark, "spark"));
        spark.addSparkListener(reports);
        return reports;
    }

    /** {@link #register(SparkContext)} on the session's context. */
    public static GovernedWriteReports register(SparkSession spark) {
        return register(spark.sparkContext());
    }

    /**
     * A mark after every job started so far; take it before a statement, read {@link #since} after.
     *
     * @throws TimeoutException when Spark's listener bus did not deliver its events within {@code wait}
     */
    public Mark mark(Duration wait) throws TimeoutException {
        drain(wait);
        synchronized (this) {
            return new Mark(lastJobId);
        }
    }

    /**
     * What the jobs started after {@code mark} reported, with their tasks that ended so far.
     *
     * @throws TimeoutException when Spark's listener bus did not deliver its events within {@code wait}
     */
    public GovernedWriteReport since(Mark mark, Duration wait) throws TimeoutException {
        drain(wait);
        return report(job -> job.id > mark.lastJobId());
    }

    /**
     * What the jobs of Spark job group {@code group} ({@code SparkContext.setJobGroup}) reported.
     *
     * @throws TimeoutException when Spark's listener bus did not deliver its events within {@code wait}
     */
    public GovernedWriteReport jobGroup(String group, Duration wait) throws TimeoutException {
        drain(wait);
        return report(job -> group.equals(job.group));
    }

    /** Removes the listener from the context. Idempotent. */
    @Override
    public void close() {
        spark.removeSparkListener(this);
    }

    @Override
    public synchronized void onJobStart(SparkListenerJobStart start) {
        int id = start.jobId();
        lastJobId = Math.max(lastJobId, id);
        String group = start.properties() == null ? null : start.properties().getProperty(JOB_GROUP);
        jobs.put(id, new Job(id, group));
        // Iterated, not converted: the collection converters differ between Scala 2.12 and 2.13.
        for (scala.collection.Iterator<Object> stages = start.stageIds().iterator(); stages.hasNext(); ) {
            jobOfStage.putIfAbsent((Integer) stages.next(), id);
        }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        long[] update = new long[Field.values().length];
        boolean reported = false;
        for (scala.collection.Iterator<AccumulableInfo> infos = end.taskInfo().accumulables().iterator(); infos.hasNext(); ) {
            AccumulableInfo info = infos.next();
            Field field = info.name().isDefined() ? FIELDS.get(info.name().get()) : null;
            if (field != null && info.update().isDefined()) {
                update[field.ordinal()] = Long.parseLong(String.valueOf(info.update().get()));
                reported = true;
            }
        }
        if (!reported) {
            return;
        }
        synchronized (this) {
            Integer job = jobOfStage.get(end.stageId());
            Job entry = job == null ? null : jobs.get(job);
            if (entry != null) {
                entry.add(update, end.taskInfo().successful());
            }
        }
    }

    private synchronized GovernedWriteReport report(Predicate<Job> which) {
        List<Integer> ids = new ArrayList<>();
        long tasks = 0;
        long failed = 0;
        long[] values = new long[Field.values().length];
        for (Job job : jobs.values()) {
            if (job.tasks == 0 || !which.test(job)) {
                continue;
            }
            ids.add(job.id);
            tasks += job.tasks;
            failed += job.failedTasks;
            combine(values, job.values);
        }
        ids.sort(null);
        return GovernedWriteReport.of(ids, tasks, failed, values);
    }

    private static void combine(long[] into, long[] update) {
        for (Field field : Field.values()) {
            int i = field.ordinal();
            into[i] = field.kind() == Kind.MAX ? Math.max(into[i], update[i]) : into[i] + update[i];
        }
    }

    private void drain(Duration wait) throws TimeoutException {
        spark.listenerBus().waitUntilEmpty(wait.toMillis());
    }

    /** A map that drops its oldest entry past {@code limit} entries. */
    private static <K, V> Map<K, V> bounded(int limit) {
        return new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > limit;
            }
        };
    }

    /** One job's reporting tasks, summed; guarded by the listener's lock. */
    private static final class Job {
        final int id;
        final String group;
        long tasks;
        long failedTasks;
        final long[] values = new long[Field.values().length];

        Job(int id, String group) {
            this.id = id;
            this.group = group;
        }

        void add(long[] update, boolean successful) {
            tasks++;
            if (!successful) {
                failedTasks++;
            }
            combine(values, update);
        }
    }
}
