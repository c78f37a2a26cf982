package io.paimongov.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the {@code paimonGovernance.*} gauges of the governed writers
 * and assigners of the embedded cluster, per job, so the {@code sql} command and the Flink demo can
 * read what each write reported once its job ended: the gauges read a write's final snapshot after
 * it closed ({@code FlinkMetricGroupReporter}), so a gauge Flink already removed still answers.
 *
 * <p>Configured into the embedded cluster with {@code metrics.reporter.paimongov.factory.class} =
 * {@link Factory}; Flink makes the reporter, and this class keeps what it saw process-wide (one
 * embedded cluster at a time in this command-line process).
 *
 * <p>Thread-safety: Flink's threads add and remove metrics; the command's thread reads. Concurrent
 * maps throughout.
 */
public final class FlinkGauges implements MetricReporter {

    static final String GROUP = "paimonGovernance";
    private static final String WRITER = "paimon-gov writer ";
    private static final String ASSIGNER = "paimon-gov assigner ";

    /** Job id -> "operator name/operator id/subtask" -> field -> gauge. */
    private static final Map<String, Map<String, Map<String, Gauge<?>>>> JOBS = new ConcurrentHashMap<>();

    /** The configuration the embedded cluster needs for this reporter. */
    static void configure(org.apache.flink.configuration.Configuration config) {
        config.setString("metrics.reporter.paimongov.factory.class", Factory.class.getName());
    }

    /**
     * What the governed writers and assigners of job {@code jobId} reported, read now, and forgets
     * the job.
     */
    static WriteSummary take(String jobId) {
        Map<String, Map<String, Gauge<?>>> operators = JOBS.remove(jobId);
        List<Map<String, Long>> writers = new ArrayList<>();
        List<Map<String, Long>> assigners = new ArrayList<>();
        if (operators != null) {
            operators.forEach((operator, gauges) -> {
                Map<String, Long> values = new HashMap<>();
                gauges.forEach((field, gauge) -> {
                    Object value = gauge.getValue();
                    if (value instanceof Number n) {
                        values.put(field, n.longValue());
                    }
                });
                (operator.startsWith(ASSIGNER) ? assigners : writers).add(values);
            });
        }
        return WriteSummary.of(writers, assigners);
    }

    /** The sum of the live gauge {@code field} over the writers of job {@code jobId} now; 0 before they report. */
    static long peek(String jobId, String field) {
        long sum = 0;
        for (Map.Entry<String, Map<String, Gauge<?>>> operator : JOBS.getOrDefault(jobId, Map.of()).entrySet()) {
            Gauge<?> gauge = operator.getKey().startsWith(WRITER) ? operator.getValue().get(field) : null;
            if (gauge != null && gauge.getValue() instanceof Number n) {
                sum += n.longValue();
            }
        }
        return sum;
    }

    @Override
    public void open(MetricConfig config) {
        // Nothing to connect to.
    }

    @Override
    public void close() {
        // Kept: the command reads the last job's gauges after its cluster stopped.
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (!(metric instanceof Gauge<?> gauge) || !group.getMetricIdentifier(name).endsWith("." + GROUP + "." + name)) {
            return;
        }
        Map<String, String> variables = group.getAllVariables();
        String operator = variables.getOrDefault("<operator_name>", "");
        String job = variables.get("<job_id>");
        if (job == null || !(operator.startsWith(WRITER) || operator.startsWith(ASSIGNER))) {
            return;
        }
        // The name alone is not unique: two writers of tables named alike (db1.t, db2.t) share it.
        String subtask = operator + "/" + variables.getOrDefault("<operator_id>", "?") + "/"
                + variables.getOrDefault("<subtask_index>", "?");
        JOBS.computeIfAbsent(job, j -> new ConcurrentHashMap<>())
                .computeIfAbsent(subtask, s -> new ConcurrentHashMap<>())
                .put(name, gauge);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        // Kept until take(): the gauge answers with the write's final snapshot.
    }

    /** Made by Flink from the configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new FlinkGauges();
        }
    }
}
