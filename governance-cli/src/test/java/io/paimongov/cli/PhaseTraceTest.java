package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's phase trace: each phase printed once, in the order entered; spills, flushes and
 * compaction observed from the write's metrics; nothing without the system property; and a real
 * spilling demo traced end to end, its spill and flush lines backed by the report's own counters.
 */
class PhaseTraceTest {

    @TempDir Path tmp;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void eachPhaseIsPrintedOnceInTheOrderEntered() {
        PhaseTrace trace = PhaseTrace.to(err);
        trace.enter("write");
        trace.enter("prepareCommit");
        trace.enter("write");
        trace.enter("commit");

        assertThat(lines()).containsExactly("phase write", "phase prepareCommit", "phase commit");
    }

    @Test
    void spillFlushAndCompactionAreObservedFromTheMetricsBeforeTheNextPhase() {
        AtomicReference<MetricsSnapshot> metrics = new AtomicReference<>(snapshot(Map.of()));
        PhaseTrace trace = PhaseTrace.to(err);
        trace.watch(metrics::get);
        trace.enter("write");
        metrics.set(snapshot(Map.of("spillFiles", 1L)));
        trace.enter("prepareCommit");
        metrics.set(snapshot(Map.of("spillFiles", 1L, "flushCount", 2L, "compactionsRunning", 1L)));
        trace.enter("commit");
        trace.stopWatching();

        assertThat(lines())
                .containsExactly(
                        "phase write", "phase spill", "phase prepareCommit", "phase flush", "phase compaction",
                        "phase commit");
    }

    @Test
    void aCompactionThatCompletedBetweenTwoLooksStillCounts() {
        AtomicReference<MetricsSnapshot> metrics = new AtomicReference<>(snapshot(Map.of()));
        PhaseTrace trace = PhaseTrace.to(err);
        trace.watch(metrics::get);
        metrics.set(snapshot(Map.of("compactionCount", 1L)));
        trace.stopWatching();
        metrics.set(snapshot(Map.of("spillCount", 1L)));
        trace.enter("done");

        assertThat(lines()).containsExactly("phase compaction", "phase done");
    }

    @Test
    void withoutThePropertyNothingIsPrinted() {
        PrintStream saved = System.err;
        System.clearProperty(PhaseTrace.PROPERTY);
        System.setErr(err);
        try {
            PhaseTrace trace = PhaseTrace.fromSystemProperty();
            trace.watch(() -> snapshot(Map.of("spillCount", 1L)));
            trace.enter("write");
            trace.stopWatching();
        } finally {
            System.setErr(saved);
        }
        assertThat(lines()).isEmpty();
    }

    @Test
    void aSpillingDemoTracesItsPhasesInOrder() throws Exception {
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        PrintStream saved = System.err;
        System.setProperty(PhaseTrace.PROPERTY, "true");
        System.setErr(err);
        CliRun run;
        try {
            run = CliRun.of("demo", "--rows", "40000", "--keys", "4000", "--buckets", "2", "--budget", "3m",
                    "--page-size", "16k", "--table", "pk-dv", "--json", "--spill-dir", spill.toString());
        } finally {
            System.setErr(saved);
            System.clearProperty(PhaseTrace.PROPERTY);
        }

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        // Independent of the trace: the report's counters say a spill and a flush happened.
        assertThat(json.get("spillCount").asLong()).isPositive();
        assertThat(json.get("flushCount").asLong()).isPositive();
        List<String> lines = lines();
        assertThat(lines).doesNotHaveDuplicates().allMatch(l -> l.startsWith("phase "));
        assertThat(lines).contains("phase spill", "phase flush");
        assertThat(lines).containsSubsequence(
                "phase write", "phase spill", "phase prepareCommit", "phase commit", "phase readBack", "phase done");
        // A flush happens in the writing thread's prepareCommit at the latest, never after the commit.
        assertThat(lines).containsSubsequence("phase write", "phase flush", "phase commit");
        assertThat(lines.get(0)).isEqualTo("phase write");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("phase done");
    }

    private List<String> lines() {
        String text = bytes.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\R"));
    }

    /** A snapshot with every component 0 except {@code values}, by component name. */
    private static MetricsSnapshot snapshot(Map<String, Long> values) {
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            Class<?> type = components[i].getType();
            types[i] = type;
            args[i] = type == long.class ? (Object) values.getOrDefault(components[i].getName(), 0L)
                    : type == double.class ? (Object) 0.0
                    : type == int.class ? (Object) 0
                    : type == Map.class ? Map.of() : null;
        }
        try {
            Constructor<MetricsSnapshot> c = MetricsSnapshot.class.getDeclaredConstructor(types);
            return c.newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
