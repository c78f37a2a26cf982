package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The CLI's class path carries Arrow (allocator-offheap) next to Spark, which bring different
 * netty versions; with netty-common of one and netty-buffer of the other, Arrow's first page failed
 * with {@code AbstractMethodError}. A demo write on the offheap provider runs the class path the
 * script and {@code bench} use (the test class path is the same resolution).
 */
class CliClassPathTest {

    @Test
    void offheapProviderWritesNextToSparkAndFlink() throws Exception {
        CliRun run = CliRun.of("demo", "--provider", "offheap", "--rows", "3000", "--keys", "300", "--budget", "4m", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(json.get("error").isNull()).as(json.get("error").asText()).isTrue();
        assertThat(json.get("verified").asBoolean()).isTrue();
    }
}
