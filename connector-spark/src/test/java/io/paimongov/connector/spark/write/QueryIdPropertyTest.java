package io.paimongov.connector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The query id's local property is written out rather than read from Spark's {@code
 * StreamExecution}, which moved between Spark lines; it must still be the key that Spark on the
 * class path sets.
 */
class QueryIdPropertyTest {

    /** Where {@code StreamExecution}'s companion object lives: Spark 4.0 and before, then 4.1 on. */
    private static final List<String> COMPANIONS = List.of(
            "org.apache.spark.sql.execution.streaming.StreamExecution$",
            "org.apache.spark.sql.execution.streaming.runtime.StreamExecution$");

    @Test
    void isTheKeySparkSetsTheQueryIdUnder() throws Exception {
        List<String> keys = new ArrayList<>();
        for (String name : COMPANIONS) {
            Class<?> companion;
            try {
                companion = Class.forName(name);
            } catch (ClassNotFoundException e) {
                continue;
            }
            Object module = companion.getField("MODULE$").get(null);
            keys.add((String) companion.getMethod("QUERY_ID_KEY").invoke(module));
        }
        assertThat(keys).as("StreamExecution.QUERY_ID_KEY of the Spark on the class path")
                .containsExactly(GovernedStreamingWriter.QUERY_ID_PROPERTY);
    }
}
