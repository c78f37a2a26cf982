package io.paimongov.cli;

import io.paimongov.tck.TableModes;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What one demo run did, and its two renderings: {@link #toJson()} (the stable keys documented in
 * {@code docs/cli.md}; add keys, never rename or drop one) and {@link #toText()} (a summary for a
 * person, which may change freely).
 *
 * @param settings the job
 * @param rowsWritten rows the write accepted
 * @param deletes deletes among the generated rows
 * @param committed whether the commit was published
 * @param cancelled whether the write ended with {@code WriteCancelledException}
 * @param writes what the governed write (or the engine's governed writes) reported at close; null
 *     when no write opened
 * @param engineUsedAfterClose what the engine's allocator still counted as used after close
 * @param spillFilesLeft files found under the write's spill scope directory after close
 * @param spillScope the write's spill scope directory; null when the write never opened
 * @param verification the read-back; null when the run failed before it
 * @param writeMillis from opening the write to its close, commit included
 * @param elapsedMillis the whole run: table creation, write, read-back, clean-up
 * @param warehouse the warehouse directory if it still exists, null when it was removed
 * @param timeline what the {@code --timeline} sampler recorded; null without {@code --timeline} or
 *     when the write never opened
 * @param timelineFile the SVG file the timeline was drawn into; null when none was written
 * @param error the failure's message; null unless the run failed (a cancel is not a failure)
 * @param errorKind what kind of error {@code error} is (it decides the exit code); null without one
 */
record DemoReport(
        DemoSettings settings,
        long rowsWritten,
        long deletes,
        boolean committed,
        boolean cancelled,
        WriteSummary writes,
        long engineUsedAfterClose,
        long spillFilesLeft,
        Path spillScope,
        DemoWorkload.Verification verification,
        long writeMillis,
        long elapsedMillis,
        Path warehouse,
        TimelineRecorder.Timeline timeline,
        Path timelineFile,
        String error,
        RootCause.Kind errorKind) {

    /** Text width of {@link #toText()} and the indent of its items' text. */
    static final int WIDTH = 100;
    static final int LABEL_WIDTH = 12;

    /**
     * The process exit code: an error's kind decides it (a setting the provider refused when the
     * write opened is bad arguments, an error of the environment 4, anything else a failure); then
     * verification, then success.
     */
    int exitCode() {
        if (error != null) {
            return errorKind == null ? GovernanceCli.EXIT_FAILURE : errorKind.exitCode;
        }
        return verified() ? GovernanceCli.EXIT_OK : GovernanceCli.EXIT_VERIFICATION_FAILED;
    }

    boolean verified() {
        return verification != null && verification.verified();
    }

    /** The report as one JSON object; metric fields are 0 when the write never opened. */
    String toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("provider", settings.provider().name());
        json.put("table", settings.table().label());
        json.put("format", settings.format());
        json.put("rows", settings.rows());
        json.put("keys", settings.keys());
        json.put("partitions", settings.partitions());
        json.put("buckets", settings.buckets());
        json.put("valueBytes", settings.valueBytes());
        json.put("seed", settings.seed());
        json.put("cancelAfterRows", settings.cancels() ? settings.cancelAfterRows() : null);
        json.put("budgetBytes", settings.options().budgetBytes());
        json.put("pageSize", settings.options().pageSize());
        json.put("rowsWritten", rowsWritten);
        json.put("committed", committed);
        json.put("cancelled", cancelled);
        json.put("expectedRows", verification == null ? 0 : verification.expectedRows());
        json.put("rowsReadBack", verification == null ? 0 : verification.rowsReadBack());
        json.put("verified", verified());
        json.put("mismatch", verification == null ? null : verification.mismatch());
        json.put("writes", metric(WriteSummary::writes));
        json.put("peakReservedBytes", metric(WriteSummary::peakReservedBytes));
        json.put("reservedAfterClose", metric(WriteSummary::reservedAfterClose));
        json.put("engineUsedAfterClose", engineUsedAfterClose);
        json.put("spillCount", metric(WriteSummary::spillCount));
        json.put("spillFiles", metric(WriteSummary::spillFiles));
        json.put("spillBytes", metric(WriteSummary::spillBytes));
        json.put("spillFilesLeft", spillFilesLeft);
        json.put("outputFiles", metric(WriteSummary::outputFiles));
        json.put("outputBytes", metric(WriteSummary::outputBytes));
        json.put("flushCount", metric(WriteSummary::flushCount));
        json.put("writeMillis", writeMillis);
        json.put("elapsedMillis", elapsedMillis);
        json.put("warehouse", warehouse == null ? null : warehouse.toString());
        json.put("error", error);
        json.put("timeline", timelineFile == null ? null : timelineFile.toString());
        json.put("errorKind", error == null || errorKind == null ? null : errorKind.json);
        return Json.write(json);
    }

    private long metric(ToLongFunction<WriteSummary> field) {
        return writes == null ? 0 : field.applyAsLong(writes);
    }

    private static String tableLayout(DemoSettings s) {
        return switch (s.table()) {
            case PK, PK_DV, PK_LOOKUP -> "primary key, " + s.buckets() + " buckets"
                    + (s.table() == TableModes.PK_DV ? ", deletion vectors" : "")
                    + (s.table() == TableModes.PK_LOOKUP ? ", lookup changelog" : "");
            case PK_DYNAMIC -> "primary key, dynamic buckets";
            case APPEND -> "append, no buckets";
            case APPEND_BUCKETED -> "append, " + s.buckets() + " buckets";
            case POSTPONE -> "primary key, postpone bucket";
        };
    }

    private static String writtenHow(String provider) {
        return switch (provider) {
            case "flink" -> "by one INSERT INTO of Flink SQL on a local cluster, through the catalog 'governed' (one governed"
                    + " writer on the slot's managed memory, provider 'flink')";
            case "spark" -> "by one INSERT INTO of Spark SQL in local Spark, through the catalog 'governed' (one governed"
                    + " write on the task's execution memory, provider 'spark'; upserts only: Spark's INSERT has no deletes)";
            default -> "through one governed write with provider '" + provider + "'";
        };
    }

    /** A summary that says what happened and why it matters, line by line. */
    String toText() {
        StringBuilder out = new StringBuilder();
        DemoSettings s = settings;
        out.append(String.format(Locale.ROOT,
                "Demo: %,d rows into the Paimon table %s.%s (%s: %s; %d partitions, %s),%n"
                        + "      written %s.%n",
                s.rows(), DemoTable.DATABASE, DemoTable.TABLE, s.table().label(), tableLayout(s), s.partitions(),
                s.format(), writtenHow(s.provider().name())));
        if (!s.table().readable()) {
            line(out, "table", "postpone bucket: Paimon keeps the rows out of reads until it rescales the table,"
                    + " so the read-back below must find nothing");
        }
        if (s.appendOnly()) {
            line(out, "input", String.format(Locale.ROOT,
                    "every row inserts a key of its own (an append table keeps every row), %d-byte values, seed %d",
                    s.valueBytes(), s.seed()));
        } else {
            line(out, "input", String.format(Locale.ROOT,
                    "%,d possible keys (%d partitions x %,d), %d-byte values, seed %d; repeated keys overwrite,"
                            + " %,d rows deleted a live key",
                    (long) s.partitions() * s.keys(), s.partitions(), s.keys(), s.valueBytes(), s.seed(), deletes));
        }
        if (writes != null) {
            memoryLines(out, writes);
        }
        outcomeLines(out);
        line(out, "time", String.format(Locale.ROOT, "%.1f s in all; the write and commit took %.1f s",
                elapsedMillis / 1000.0, writeMillis / 1000.0));
        if (timelineFile != null) {
            line(out, "timeline", String.format(Locale.ROOT,
                    "%s: accounted memory against the budget, %,d samples over %.1f s, %,d spills and %,d"
                            + " flushes marked", timelineFile, timeline.samples().size(),
                    timeline.samples().get(timeline.samples().size() - 1).millis() / 1000,
                    timeline.total(TimelineRecorder.Kind.SPILL), timeline.total(TimelineRecorder.Kind.FLUSH)));
        }
        line(out, "warehouse", warehouse == null
                ? "temporary, removed (keep it with --keep, or choose one with --warehouse DIR)"
                : warehouse + " (table " + DemoTable.DATABASE + "." + DemoTable.TABLE + ")");
        return out.toString();
    }

    private void memoryLines(StringBuilder out, WriteSummary m) {
        long budget = m.budgetBytes();
        line(out, "memory", String.format(Locale.ROOT,
                "budget %s (pages of %s); peak accounted %s = %d%% of the budget, %s;"
                        + " after close %s accounted, %s held by the allocator",
                bytes(budget), bytes(settings.options().pageSize()), bytes(m.peakReservedBytes()),
                budget == 0 ? 0 : 100 * m.peakReservedBytes() / budget,
                m.peakReservedBytes() <= budget ? "never above it" : "ABOVE IT",
                bytes(m.reservedAfterClose()), bytes(engineUsedAfterClose)));
        line(out, "spill", m.spillCount() == 0
                ? "none: the write buffers fit in the budget (a smaller --budget makes the write spill)"
                : String.format(Locale.ROOT,
                        "the budget ran short, so the write buffers spilled %,d times: %,d files, %s,"
                                + " in %s; %,d files left after close",
                        m.spillCount(), m.spillFiles(), bytes(m.spillBytes()), spillWhere(), spillFilesLeft));
        if (committed) {
            line(out, "output", String.format(Locale.ROOT,
                    "%,d data files, %s (%,d buffer flushes), committed as one snapshot",
                    m.outputFiles(), bytes(m.outputBytes()), m.flushCount()));
        }
    }

    /** The heap and off-heap demos run one write, whose scope is known; an engine's writers each make theirs under its temp dirs. */
    private String spillWhere() {
        return DemoEngines.isEngine(settings.provider().name())
                ? "spill scopes of the writers' own under the engine's temp dir " + spillScope
                : "the write's own spill scope " + spillScope;
    }

    private void outcomeLines(StringBuilder out) {
        if (cancelled && settings.cancels()) {
            line(out, "cancel", String.format(Locale.ROOT,
                    "another thread cancelled the write after %,d rows (--cancel-after-rows %d);"
                            + " nothing was committed", rowsWritten, settings.cancelAfterRows()));
        }
        if (error != null) {
            line(out, "error", error);
        }
        if (verification == null) {
            line(out, "verify", "not done: the run failed before the read-back");
        } else if (verification.verified()) {
            line(out, "verify", committed
                    ? String.format(Locale.ROOT,
                            "OK: read back %,d rows, equal to the reference model (last value per key,"
                                    + " deletes applied)", verification.rowsReadBack())
                    : "OK: the table is empty, as it must be when nothing was committed");
        } else {
            line(out, "verify", String.format(Locale.ROOT, "FAILED: read back %,d rows, expected %,d; %s",
                    verification.rowsReadBack(), verification.expectedRows(), verification.mismatch()));
        }
    }

    /** One labelled item, its text word-wrapped at {@value #WIDTH} columns. */
    private static void line(StringBuilder out, String label, String text) {
        StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-10s", label));
        boolean empty = true;
        for (String word : text.split(" ")) {
            if (!empty && row.length() + 1 + word.length() > WIDTH) {
                out.append(row).append(System.lineSeparator());
                row = new StringBuilder(" ".repeat(LABEL_WIDTH));
                empty = true;
            }
            row.append(empty ? "" : " ").append(word);
            empty = false;
        }
        out.append(row).append(System.lineSeparator());
    }

    /** Binary units with one decimal: {@code 15.9 MiB}. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = n / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
