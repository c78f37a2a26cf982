package io.paimongov.connector.flink;

import io.paimongov.flink.FlinkMetricGroupReporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * What the governed writers of a job reported through Flink's metric system ({@link
 * InMemoryReporter}), and what they left in the task managers' temp dirs: the tests' view from
 * outside the writers.
 */
public final class JobGauges {

    private JobGauges() {}

    /** The gauge {@code paimonGovernance.<name>} of every governed operator subtask of {@code job}, by metric identifier. */
    public static Map<String, Long> of(InMemoryReporter reporter, JobID job, String name) {
        return of(reporter, job, name, "paimon-gov ");
    }

    /** As {@link #of(InMemoryReporter, JobID, String)}, of the writers only (not the assigners). */
    public static Map<String, Long> ofWriters(InMemoryReporter reporter, JobID job, String name) {
        return of(reporter, job, name, "paimon-gov writer ");
    }

    /**
     * As {@link #of(InMemoryReporter, JobID, String)}, of every operator of the job: the planner
     * names the operator of a table source after the table ({@code t[22]}), not after its own name.
     */
    public static Map<String, Long> ofAnyOperator(InMemoryReporter reporter, JobID job, String name) {
        return of(reporter, job, name, "");
    }

    private static Map<String, Long> of(InMemoryReporter reporter, JobID job, String name, String operatorPrefix) {
        Map<String, Long> values = new TreeMap<>();
        for (Map.Entry<MetricGroup, Map<String, Metric>> group : reporter.getMetricsByGroup().entrySet()) {
            String identifier = group.getKey().getMetricIdentifier(name);
            Metric metric = group.getValue().get(name);
            Map<String, String> variables = group.getKey().getAllVariables();
            if (metric != null
                    && job.toString().equals(variables.get("<job_id>"))
                    && variables.getOrDefault("<operator_name>", "").startsWith(operatorPrefix)
                    && identifier.endsWith("." + FlinkMetricGroupReporter.GROUP + "." + name)) {
                values.put(identifier, ((Number) ((Gauge<?>) metric).getValue()).longValue());
            }
        }
        return values;
    }

    /** Spill scopes of governed writes (and Paimon spill dirs) anywhere under {@code flinkTmp}. */
    public static List<Path> scopesLeft(Path flinkTmp) throws IOException {
        try (Stream<Path> walk = Files.walk(flinkTmp)) {
            return walk.filter(p -> {
                        String name = p.getFileName().toString();
                        return name.startsWith("paimon-gov-") || name.startsWith("paimon-io-");
                    })
                    .toList();
        }
    }
}
