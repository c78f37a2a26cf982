package io.paimongov.connector.flink.sink;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Finds Flink SQL's sink upsert materializer in front of a sink. Paimon's own sink refuses it
 * ({@code FlinkSink}: its writer fails when it starts, "Sink materializer must not be used with
 * Paimon sink"), and the governed writer fails the same way ({@link
 * GovernedWriterOperator#refuseAtOpen}). The planner adds it in front of a primary-key sink when it
 * cannot match the input's upsert key with the table's primary key ({@code
 * table.exec.sink.upsert-materialize} = {@code AUTO}, Flink's default), for instance a changelog
 * stream without a declared primary key. It keeps the rows the job has seen in keyed state and
 * drops a delete of a row it does not hold, so a delete of a key written before the job would never
 * reach the table; the table's merge engine keeps the last row per key without it.
 *
 * <p>Stateless; called on the thread building the job.
 */
final class UpsertMaterializer {

    /** The prefix of the materializer's name in Flink's plan, which Paimon's check looks for too. */
    static final String OPERATOR_NAME = "SinkMaterializer";
    static final String OPTION = "table.exec.sink.upsert-materialize";

    private UpsertMaterializer() {}

    /** Whether {@code input} or anything upstream of it is the materializer. */
    static boolean upstreamOf(DataStream<?> input) {
        Queue<Transformation<?>> next = new ArrayDeque<>();
        Set<Integer> seen = new HashSet<>();
        next.add(input.getTransformation());
        seen.add(input.getTransformation().getId());
        while (!next.isEmpty()) {
            Transformation<?> t = next.poll();
            if (t.getName() != null && t.getName().startsWith(OPERATOR_NAME)) {
                return true;
            }
            for (Transformation<?> in : t.getInputs()) {
                if (seen.add(in.getId())) {
                    next.add(in);
                }
            }
        }
        return false;
    }

    /** The writer's error for {@code table} fed through the materializer; names {@value #OPTION}. */
    static String refusal(String table) {
        return "the rows for '" + table + "' go through Flink's sink upsert materializer, which drops deletes of keys"
                + " it has not seen in this job and which Paimon's sink refuses too: set '" + OPTION + "' to 'NONE'"
                + " (or declare the input's primary key as the table's)";
    }
}
