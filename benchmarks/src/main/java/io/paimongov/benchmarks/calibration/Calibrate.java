package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.ChildJvm;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/*
 * The parent side of the calibration: runs every cell of a grid at two writer counts, each in a
 * child JVM of its own (FootprintProbe), reads the one result line each prints, and turns the two
 * counts into per-writer figures (FootprintTable). A JVM per measurement because Paimon and the
 * formats keep state across writes (codec pools, caches): in one JVM the second count would start
 * from what the first left behind. Two children with the same warm-up start from the same state,
 * so what the warm-up leaves cancels in the slope.
 *
 * Children run one after another, never side by side: each one's full collections would slow
 * the other and the machine is small. The serial collector makes a full collection cheap and its
 * "after collection" usage exact (one stop-the-world compaction of the whole heap).
 */

/**
 * Runs the footprint calibration: {@link #main} for {@code benchmarks/calibrate}, {@link #run} for
 * tests. Not thread-safe: one run at a time, and nothing else should run on the machine that
 * needs it quiet. {@link #run} throws when a child fails, with the child's output; the work
 * directory is removed cell by cell.
 */
public final class Calibrate {

    /** The spill codecs measured: Paimon's default {@code spill-compression} and the fast one. */
    static final List<String> SPILL_CODECS = List.of("zstd", "lz4");

    /**
     * What to measure.
     *
     * @param writersLow the smaller number of open writers (a multiple of 8: partitions of 8 buckets)
     * @param writersHigh the larger
     * @param rowsPerWriter rows written into each writer before the measurement
     */
    public record Grid(List<Cell.Kind> kinds, List<String> formats, List<String> compressions, List<Integer> valueBytes,
            List<Integer> pageSizes, int writersLow, int writersHigh, int rowsPerWriter) {

        public Grid {
            if (writersLow % FootprintProbe.BUCKETS != 0 || writersHigh % FootprintProbe.BUCKETS != 0
                    || writersLow <= 0 || writersHigh <= writersLow) {
                throw new IllegalArgumentException("writer counts must be multiples of " + FootprintProbe.BUCKETS
                        + " with low < high: " + writersLow + ", " + writersHigh);
            }
        }

        /**
         * Every format, Paimon's default compression (zstd) and snappy, rows of about 64 B and 1 KiB,
         * pages of 32k and 64k; spill channels with the spill codecs zstd (Paimon's default) and lz4.
         */
        public static Grid full() {
            return new Grid(List.of(Cell.Kind.PK, Cell.Kind.APPEND, Cell.Kind.SPILL), List.of("parquet", "orc", "avro"),
                    List.of("zstd", "snappy"), List.of(64, 1024), List.of(32 << 10, 64 << 10), 64, 256, 32);
        }

        /** Only the spill channels, at the full grid's sizes ({@code --spill-only}): a minute. */
        public static Grid spill() {
            return new Grid(List.of(Cell.Kind.SPILL), List.of(), List.of(), List.of(64, 1024), List.of(32 << 10, 64 << 10),
                    64, 256, 32);
        }

        /** Every format and kind at the defaults, fewer writers: minutes, not tens of minutes. */
        public static Grid quick() {
            return new Grid(List.of(Cell.Kind.PK, Cell.Kind.APPEND, Cell.Kind.SPILL), List.of("parquet", "orc", "avro"),
                    List.of("zstd"), List.of(64), List.of(64 << 10), 16, 64, 32);
        }

        public List<Cell> cells() {
            List<Cell> cells = new ArrayList<>();
            for (Cell.Kind k : kinds) {
                for (String f : k == Cell.Kind.SPILL ? SpillChannelProbe.FORMATS : formats) {
                    for (String c : k == Cell.Kind.SPILL ? SPILL_CODECS : compressions) {
                        for (int v : valueBytes) {
                            for (int p : pageSizes) {
                                cells.add(new Cell(k, f, c, v, p));
                            }
                        }
                    }
                }
            }
            return cells;
        }
    }

    private Calibrate() {}

    /**
     * Measures every cell of {@code grid} under {@code workDir} (removed cell by cell) and returns
     * the table with a header naming {@code command}. Progress goes to {@code progress}. Throws when
     * a child fails, with its output.
     */
    public static FootprintTable run(Grid grid, Path workDir, String command, Consumer<String> progress) throws Exception {
        List<Cell> cells = grid.cells();
        List<FootprintTable.Row> rows = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            long start = System.nanoTime();
            Map<String, Long> low = ChildRuns.child(cell, grid.rowsPerWriter(), grid.writersLow(), workDir.resolve("cell-" + i + "-low"));
            Map<String, Long> high = ChildRuns.child(cell, grid.rowsPerWriter(), grid.writersHigh(), workDir.resolve("cell-" + i + "-high"));
            List<String> stages = stages(cell.kind());
            for (String stage : stages) {
                rows.add(new FootprintTable.Row(cell, grid.rowsPerWriter(), stage, low.get("writers").intValue(),
                        high.get("writers").intValue(), low.get(stage), high.get(stage), low.get(stage + "Pages"),
                        high.get(stage + "Pages")));
            }
            StringBuilder line = new StringBuilder();
            for (FootprintTable.Row r : rows.subList(rows.size() - stages.size(), rows.size())) {
                line.append(String.format(", %s %,d B", r.stage(), r.bytesPerWriter()));
                if (r.pageBytesPerWriter() != 0) {
                    line.append(String.format(" (+%,d B pages)", r.pageBytesPerWriter()));
                }
            }
            progress.accept(String.format("calibrate: %d/%d %s: per writer%s; %.1f s", i + 1, cells.size(), cell,
                    line.substring(1), (System.nanoTime() - start) / 1e9));
        }
        return new FootprintTable(header(command), rows);
    }

    /** Key counts just past a doubling of fastutil's open hash tables (0.75 * 2^18 + 1, 0.75 * 2^20 + 1): the worst points. */
    static final int HASH_INDEX_KEYS_LOW = 196_609;
    static final int HASH_INDEX_KEYS_HIGH = 786_433;

    /**
     * The dynamic-bucket hash index (HashIndexProbe), one row per page size: kind {@code pk}, format
     * and compression {@code any}, stage {@code hash-index}; "writers" are keys, so {@code
     * bytesPerWriter} is bytes per key.
     */
    static List<FootprintTable.Row> hashIndexRows(List<Integer> pageSizes, Path workDir, Consumer<String> progress)
            throws Exception {
        return countedRows(HashIndexProbe.class, HashIndexProbe.RESULT, "hash-index", "keys", HASH_INDEX_KEYS_LOW,
                HASH_INDEX_KEYS_HIGH, pageSizes, workDir, progress, "hash index", "key");
    }

    /** Writers sent to the shared sort at the two measured points ({@link SortedKeyProbe}; a few dozen open ones fall out). */
    static final int SORTED_KEYS_LOW = 4_096;
    static final int SORTED_KEYS_HIGH = 16_384;

    /**
     * The shared sort's bookkeeping per writer it holds rows of ({@link SortedKeyProbe}), one row per
     * page size: kind {@code pk}, format and compression {@code any}, stage {@code sorted-key};
     * "writers" are the writers sent to the sort, so {@code bytesPerWriter} is bytes per such writer.
     */
    static List<FootprintTable.Row> sortedKeyRows(List<Integer> pageSizes, Path workDir, Consumer<String> progress)
            throws Exception {
        return countedRows(SortedKeyProbe.class, SortedKeyProbe.RESULT, SortedKeyProbe.STAGE, "sorted", SORTED_KEYS_LOW,
                SORTED_KEYS_HIGH, pageSizes, workDir, progress, "shared sort", "sorted writer");
    }

    /**
     * One row per page size of a probe run with {@code PAGE_SIZE COUNT WORK_DIR} at two counts, whose
     * result line gives {@code heap}, {@code pages} and, as {@code counted}, how many things it
     * measured: kind {@code pk}, format and compression {@code any}.
     */
    private static List<FootprintTable.Row> countedRows(Class<?> probe, String result, String stage, String counted, int lowCount,
            int highCount, List<Integer> pageSizes, Path workDir, Consumer<String> progress, String what, String unit) throws Exception {
        List<FootprintTable.Row> rows = new ArrayList<>();
        for (int pageSize : pageSizes) {
            long start = System.nanoTime();
            Map<String, Long> low = countedChild(probe, result, what, pageSize, lowCount, workDir.resolve(stage + "-" + pageSize + "-low"));
            Map<String, Long> high = countedChild(probe, result, what, pageSize, highCount, workDir.resolve(stage + "-" + pageSize + "-high"));
            FootprintTable.Row row = new FootprintTable.Row(new Cell(Cell.Kind.PK, "any", "any", 0, pageSize), 1, stage,
                    low.get(counted).intValue(), high.get(counted).intValue(), low.get("heap"), high.get("heap"),
                    low.get("pages"), high.get("pages"));
            rows.add(row);
            progress.accept(String.format("calibrate: %s page=%dk: %,d B per %s; %.1f s", what, pageSize >> 10,
                    row.bytesPerWriter(), unit, (System.nanoTime() - start) / 1e9));
        }
        return rows;
    }

    private static Map<String, Long> countedChild(Class<?> probe, String result, String what, int pageSize, int count, Path dir)
            throws Exception {
        return ChildRuns.runChild(probe, result, what + " page=" + (pageSize >> 10) + "k at " + count, dir, Integer.toString(pageSize),
                Integer.toString(count), dir.resolve("work").toString());
    }

    /**
     * The {@code message} rows ({@code --messages}): what one closed writer's commit message keeps,
     * for each table kind and format at Paimon's default compression, 64-byte values and 64k pages,
     * slope between {@code grid}'s two writer counts ({@link MessageProbe}).
     */
    static List<FootprintTable.Row> messageRows(Grid grid, Path workDir, Consumer<String> progress) throws Exception {
        return probeRows(MessageProbe.class, MessageProbe.STAGE, List.of(Cell.Kind.PK, Cell.Kind.APPEND), grid, workDir,
                progress, "per closed writer's message");
    }

    /**
     * The {@code reader} rows ({@code --readers}): what one open reader of a small primary-key data
     * file keeps while a compaction merges it, for each format at Paimon's default compression,
     * 64-byte values and 64k pages, slope between {@code grid}'s two writer counts ({@link ReaderProbe}).
     */
    static List<FootprintTable.Row> readerRows(Grid grid, Path workDir, Consumer<String> progress) throws Exception {
        return probeRows(ReaderProbe.class, ReaderProbe.STAGE, List.of(Cell.Kind.PK), grid, workDir, progress,
                "per open compaction reader");
    }

    /** One row per kind and format of a probe that measures one {@code stage} per writer, as {@link MessageProbe} does. */
    private static List<FootprintTable.Row> probeRows(Class<?> probe, String stage, List<Cell.Kind> kinds, Grid grid, Path workDir,
            Consumer<String> progress, String what) throws Exception {
        List<FootprintTable.Row> rows = new ArrayList<>();
        for (Cell.Kind kind : kinds) {
            for (String format : List.of("parquet", "orc", "avro")) {
                long start = System.nanoTime();
                Cell cell = new Cell(kind, format, "zstd", 64, 64 << 10);
                Map<String, Long> low = ChildRuns.probeChild(probe, stage, cell, grid.rowsPerWriter(), grid.writersLow(), workDir.resolve(stage + "-low"));
                Map<String, Long> high = ChildRuns.probeChild(probe, stage, cell, grid.rowsPerWriter(), grid.writersHigh(), workDir.resolve(stage + "-high"));
                FootprintTable.Row row = new FootprintTable.Row(cell, grid.rowsPerWriter(), stage, low.get("writers").intValue(),
                        high.get("writers").intValue(), low.get(stage), high.get(stage), 0L, 0L);
                rows.add(row);
                progress.accept(String.format("calibrate: %s: %s %,d B; %.1f s", cell, what, row.bytesPerWriter(),
                        (System.nanoTime() - start) / 1e9));
            }
        }
        return rows;
    }

    /** The stages a cell of {@code kind} measures, in the order the table lists them. */
    static List<String> stages(Cell.Kind kind) {
        return switch (kind) {
            case PK -> List.of("open", "idle", "file");
            case APPEND -> List.of("open", "idle");
            case SPILL -> List.of(SpillChannelProbe.STAGE);
        };
    }

    static Map<String, String> header(String command) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("harness", Calibrate.class.getName() + " (children: " + FootprintProbe.class.getName() + ", "
                + SpillChannelProbe.class.getName() + ")");
        h.put("command", command);
        h.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", children " + ChildRuns.CHILD_HEAP + " " + String.join(" ", ChildJvm.MEASURING_COLLECTOR));
        h.put("paimon", paimonVersion());
        h.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        h.put("machine", Runtime.getRuntime().availableProcessors() + " cores, " + (memory >> 20) + " MiB, "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        h.put("method", "live heap after settled full GCs above a baseline taken with the write open and no writer, less"
                + " the pool's pages; per-writer = slope between writersLow and writersHigh; docs/performance.md");
        return h;
    }

    private static String paimonVersion() {
        try (InputStream in = Calibrate.class.getResourceAsStream("/META-INF/maven/org.apache.paimon/paimon-bundle/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return "paimon-bundle " + p.getProperty("version");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * {@code [--quick | --spill-only | --messages | --sorted-keys | --readers] [--hash-index] [--json]
     * [--out FILE] [--work DIR]}: runs the full grid with the hash-index, commit-message, shared-sort
     * and compaction-reader rows (or the quick one, or only the spill channels, the commit messages,
     * the shared sort's per-writer bookkeeping or the compaction readers; {@code --hash-index}: only
     * the dynamic-bucket hash index rows at the grid's page sizes),
     * writes the table to {@code FILE} (TSV, or JSON when it ends in {@code .json}); progress on
     * stderr; with {@code --json} the table as JSON on stdout and nothing else. The system property
     * {@code calibrate.command} names the command in the table's header (benchmarks/calibrate sets it).
     */
    public static void main(String[] args) throws Exception {
        boolean quick = false;
        boolean hashIndexOnly = false;
        boolean spillOnly = false;
        boolean messagesOnly = false;
        boolean sortedKeysOnly = false;
        boolean readersOnly = false;
        boolean json = false;
        Path out = null;
        Path work = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--hash-index" -> hashIndexOnly = true;
                case "--spill-only" -> spillOnly = true;
                case "--messages" -> messagesOnly = true;
                case "--sorted-keys" -> sortedKeysOnly = true;
                case "--readers" -> readersOnly = true;
                case "--json" -> json = true;
                case "--out" -> out = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: Calibrate [--quick | --spill-only | --messages | --sorted-keys | --readers] [--hash-index] [--json] [--out FILE] [--work DIR];"
                            + " unknown: " + args[i]);
                    System.exit(2);
                }
            }
        }
        String command = System.getProperty("calibrate.command",
                "java " + Calibrate.class.getName() + (args.length == 0 ? "" : " " + String.join(" ", Arrays.asList(args))));
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("calibrate");
        PrintStream err = System.err;
        Grid grid = spillOnly ? Grid.spill() : quick ? Grid.quick() : Grid.full();
        List<FootprintTable.Row> rows = new ArrayList<>();
        if (messagesOnly) {
            rows.addAll(messageRows(Grid.full(), dir, err::println));
        } else if (sortedKeysOnly) {
            rows.addAll(sortedKeyRows(Grid.full().pageSizes(), dir, err::println));
        } else if (readersOnly) {
            rows.addAll(readerRows(Grid.full(), dir, err::println));
        } else {
            if (!hashIndexOnly) {
                rows.addAll(run(grid, dir, command, err::println).rows());
            }
            if (!spillOnly) {
                rows.addAll(hashIndexRows(grid.pageSizes(), dir, err::println));
            }
            if (!spillOnly && !hashIndexOnly) {
                rows.addAll(messageRows(grid, dir, err::println));
                rows.addAll(sortedKeyRows(grid.pageSizes(), dir, err::println));
                rows.addAll(readerRows(grid, dir, err::println));
            }
        }
        FootprintTable table = new FootprintTable(header(command), rows);
        if (work == null) {
            BenchTables.deleteTree(dir);
        }
        if (out != null) {
            table.write(out);
            err.println("calibrate: wrote " + out);
        }
        if (json) {
            System.out.print(table.toJson());
        } else if (out == null) {
            System.out.print(table.toTsv());
        }
    }
}
