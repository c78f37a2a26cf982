package io.paimongov.benchmarks;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.read.ReadSnapshot;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.tck.SortedRunTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import io.paimongov.runtime.tables.PaimonPaths;

/**
 * {@code bench read}: merge-on-reads of primary-key tables of overlapping sorted runs, written by
 * plain Paimon ({@link SortedRunTable}), governed and plain in child JVMs of the same {@code -Xmx},
 * the serial collector and the same live-heap sampler ({@link LiveHeapSampler}, from outside the
 * accounting), side by side in one run. The governed read has a quarter of the heap as its budget;
 * plain Paimon has an IOManager, so its own spill (above {@code sort-spill-threshold}, by default
 * {@code num-sorted-run.stop-trigger} + 1 = 9 runs, the smallest runs are spilled one per channel
 * and all are merged at once) is in force. docs/performance.md, run R, says how to read it.
 *
 * <ul>
 *   <li><b>Wide runs</b> ({@code wide*}): a dozen runs of one large row group each, as a
 *       primary-key write with Paimon's default write buffer flushes them. Plain Paimon keeps the
 *       largest 9 runs' readers open at once, each holding its row group and a batch of decoded
 *       rows, more than the heap; the governed read merges the runs one or a few at a time through
 *       spilled runs. Reported: whether each survived ({@code governedSurvived}, {@code plainOom}),
 *       the governed child's live heap peak over its budget ({@code heapPeakOverBudget}), and
 *       whether its rows match the model of what was written.
 *   <li><b>Many runs</b> ({@code many*}): hundreds of small runs of wide rows. Plain Paimon spills
 *       all but 9 and merges hundreds of channels at once; the governed read merges in passes.
 *       Reported: outcomes, live heap peaks, rows.
 *   <li><b>Few runs</b> ({@code fit*}): a table both merge at once; the governed read with the same
 *       budget, and again with an eighth of it (merging in passes), against plain Paimon:
 *       throughput ratios of median read times.
 * </ul>
 *
 * <p>The sizes are fixed per preset before a run. Each child reads its table {@code repeats} times
 * and reports its median; a child that ends prints {@code SURVIVED} and its readings. Not
 * thread-safe; one run at a time.
 */
public final class ReadUnderHeap {

    static final String SURVIVED = "SURVIVED";
    static final String GOVERNED = "governed";
    static final String PLAIN = "plain";
    /** The least budget the governed warm-up merges the few-runs table in passes with (a tight child's is below it). */
    static final long WARM_PASSES_BUDGET = 2L << 20;

    /** A table of {@code runs} sorted runs of {@code rowsPerRun} rows with values of {@code valueBytes} bytes. */
    public record Shape(int runs, int rowsPerRun, int valueBytes) {}

    /**
     * The sizes of one run.
     *
     * @param wide the wide-runs table: its runs are one row group each
     * @param many the many-runs table
     * @param fit the few-runs table
     * @param heapBytes every child's {@code -Xmx}
     * @param budgetBytes the governed read's budget (a quarter of the heap); the tight one is an eighth of it
     * @param repeats reads per child of the few-runs table, the median reported (the others read once)
     * @param timeoutSeconds the most one child may run
     */
    public record Sizes(Shape wide, Shape many, Shape fit, long heapBytes, long budgetBytes, int repeats, long timeoutSeconds) {

        public static Sizes full() {
            return new Sizes(new Shape(12, 20_000, 2048), new Shape(300, 512, 2048), new Shape(24, 20_000, 100), 192L << 20, 48L << 20, 5,
                    900);
        }

        public static Sizes quick() {
            return new Sizes(new Shape(12, 9_000, 2048), new Shape(120, 512, 2048), new Shape(16, 10_000, 100), 96L << 20, 24L << 20, 3,
                    600);
        }

        /** Seconds-long sizes for the project's own tests; the figures mean little. */
        public static Sizes tiny() {
            return new Sizes(new Shape(10, 2_500, 2048), new Shape(30, 256, 2048), new Shape(4, 2_000, 100), 64L << 20, 16L << 20, 1, 300);
        }
    }

    /** How a child ended, and its readings; -1 where it printed none. */
    public record Child(TightHeap.Outcome outcome, String output, long rows, long checksum, long medianMillis, long liveHeapPeakBytes,
            long oneTimeBytes, long mergePasses, long sectionsInPasses, long spillBytes) {

        String tail() {
            return ChildJvm.tail(output, 6);
        }
    }

    private ReadUnderHeap() {}

    /** Writes the tables under {@code dir}, runs the children and returns the report's values, in a stable order (docs/cli.md). */
    public static Map<String, Object> run(Path dir, Sizes s, Consumer<String> progress) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        SortedRunTable.Written wide = write(warehouse, "wide", s.wide(), 2, 6, progress);
        SortedRunTable.Written many = write(warehouse, "many", s.many(), 8, 7, progress);
        SortedRunTable.Written few = write(warehouse, "few", s.fit(), 4, 8, progress);

        Map<String, Object> r = new LinkedHashMap<>();
        r.put("heapBytes", s.heapBytes());
        r.put("budgetBytes", s.budgetBytes());
        r.put("runs", s.wide().runs());
        r.put("rowsPerRun", s.wide().rowsPerRun());
        r.put("valueBytes", s.wide().valueBytes());
        progress.accept("wide runs: governed read, budget " + (s.budgetBytes() >> 20) + " MiB, heap " + (s.heapBytes() >> 20) + " MiB");
        Child governed = child(dir, GOVERNED, "wide", s.budgetBytes(), 1, s);
        progress.accept("wide runs: plain read");
        Child plain = child(dir, PLAIN, "wide", s.budgetBytes(), 1, s);
        boolean governedSurvived = governed.outcome() == TightHeap.Outcome.SURVIVED;
        r.put("governedSurvived", governedSurvived);
        r.put("governedOutcome", governed.outcome().name());
        r.put("plainOom", plain.outcome() == TightHeap.Outcome.OUT_OF_MEMORY);
        r.put("plainOutcome", plain.outcome().name());
        r.put("heapPeakOverBudget", overBudget(governed, s));
        r.put("governedLiveHeapPeakBytes", governed.liveHeapPeakBytes());
        r.put("governedOneTimeBytes", governed.oneTimeBytes());
        r.put("plainLiveHeapPeakBytes", plain.liveHeapPeakBytes());
        r.put("governedRows", governed.rows());
        r.put("expectedRows", (long) wide.model().size());
        r.put("rowsMatch", matches(governed, wide));
        r.put("governedMergePasses", governed.mergePasses());
        r.put("governedSpillBytes", governed.spillBytes());
        r.put("governedTail", governedSurvived ? null : governed.tail());

        r.put("manyRuns", s.many().runs());
        r.put("manyRowsPerRun", s.many().rowsPerRun());
        r.put("manyValueBytes", s.many().valueBytes());
        progress.accept("many runs: governed read, then plain");
        Child manyGoverned = child(dir, GOVERNED, "many", s.budgetBytes(), 1, s);
        Child manyPlain = child(dir, PLAIN, "many", s.budgetBytes(), 1, s);
        r.put("manyGovernedOutcome", manyGoverned.outcome().name());
        r.put("manyPlainOutcome", manyPlain.outcome().name());
        r.put("manyHeapPeakOverBudget", overBudget(manyGoverned, s));
        r.put("manyGovernedLiveHeapPeakBytes", manyGoverned.liveHeapPeakBytes());
        r.put("manyPlainLiveHeapPeakBytes", manyPlain.liveHeapPeakBytes());
        r.put("manyRowsMatch", matches(manyGoverned, many));
        r.put("manyGovernedMergePasses", manyGoverned.mergePasses());

        r.put("fitRuns", s.fit().runs());
        r.put("fitRowsPerRun", s.fit().rowsPerRun());
        r.put("fitValueBytes", s.fit().valueBytes());
        progress.accept("few runs: governed, governed with an eighth of the budget, plain; " + s.repeats() + " reads each");
        Child fitGoverned = child(dir, GOVERNED, "few", s.budgetBytes(), s.repeats(), s);
        Child fitTight = child(dir, GOVERNED, "few", s.budgetBytes() / 8, s.repeats(), s);
        Child fitPlain = child(dir, PLAIN, "few", s.budgetBytes(), s.repeats(), s);
        boolean allSurvived = fitGoverned.outcome() == TightHeap.Outcome.SURVIVED && fitTight.outcome() == TightHeap.Outcome.SURVIVED
                && fitPlain.outcome() == TightHeap.Outcome.SURVIVED;
        r.put("fitAllSurvived", allSurvived);
        r.put("throughputRatio", allSurvived ? ratio(fitPlain, fitGoverned) : null);
        r.put("throughputRatioInPasses", allSurvived ? ratio(fitPlain, fitTight) : null);
        r.put("fitGovernedMedianMillis", fitGoverned.medianMillis());
        r.put("fitTightMedianMillis", fitTight.medianMillis());
        r.put("fitPlainMedianMillis", fitPlain.medianMillis());
        r.put("fitSectionsInPasses", fitGoverned.sectionsInPasses());
        r.put("fitTightMergePasses", fitTight.mergePasses());
        r.put("fitRowsMatch", matches(fitGoverned, few) && matches(fitTight, few) && matches(fitPlain, few));
        return r;
    }

    private static SortedRunTable.Written write(Path warehouse, String name, Shape shape, int keysPerRow, long seed,
            Consumer<String> progress) throws Exception {
        progress.accept("writing '" + name + "': " + shape.runs() + " runs of " + shape.rowsPerRun() + " rows of " + shape.valueBytes()
                + " bytes");
        return SortedRunTable.write(warehouse, name, Map.of("file.format", "parquet"), shape.runs(), shape.rowsPerRun(),
                shape.rowsPerRun() * keysPerRow, shape.valueBytes(), 20, seed);
    }

    private static Double overBudget(Child c, Sizes s) {
        return c.outcome() == TightHeap.Outcome.SURVIVED ? BenchTables.round2((double) c.liveHeapPeakBytes() / s.budgetBytes()) : null;
    }

    private static boolean matches(Child c, SortedRunTable.Written t) {
        return c.outcome() == TightHeap.Outcome.SURVIVED && c.rows() == t.model().size() && c.checksum() == checksum(t.model());
    }

    /** Governed throughput over plain: plain's median time over the governed one's. */
    private static double ratio(Child plain, Child governed) {
        return BenchTables.round2((double) plain.medianMillis() / Math.max(1, governed.medianMillis()));
    }

    static Child child(Path dir, String mode, String table, long budgetBytes, int repeats, Sizes s) throws Exception {
        Path childDir = dir.resolve(mode + "-" + table + "-" + budgetBytes);
        ChildJvm.Ended ended = ChildJvm.run(childDir, s.heapBytes(), s.timeoutSeconds(), ReadUnderHeap.class, List.of(
                mode, dir.resolve("warehouse").toString(), table, Long.toString(budgetBytes), Integer.toString(repeats),
                childDir.resolve("spill").toString()));
        BenchTables.deleteTree(childDir);
        TightHeap.Outcome outcome = ended.timedOut() ? TightHeap.Outcome.TIMED_OUT : TightHeap.classify(ended.exitCode(), ended.output());
        String line = outcome == TightHeap.Outcome.SURVIVED
                ? ended.output().lines().filter(l -> l.startsWith(SURVIVED)).findFirst().orElseThrow()
                : "";
        return new Child(outcome, ended.output(), TightHeap.value(line, "rows"), TightHeap.value(line, "checksum"),
                TightHeap.value(line, "medianMillis"), TightHeap.value(line, "liveHeapPeakBytes"), TightHeap.value(line, "oneTimeBytes"),
                TightHeap.value(line, "mergePasses"),
                TightHeap.value(line, "sectionsInPasses"), TightHeap.value(line, "spillBytes"));
    }

    /** An order-free checksum of rows {@code (k, v)}: the sum of {@code k * 31 + v.hashCode()}. */
    static long checksum(Map<Integer, String> model) {
        long sum = 0;
        for (Map.Entry<Integer, String> e : model.entrySet()) {
            sum += e.getKey() * 31L + e.getValue().hashCode();
        }
        return sum;
    }

    /**
     * The child: {@code governed|plain WAREHOUSE TABLE BUDGET_BYTES REPEATS SPILL_DIR}. Reads the
     * few-runs table first (governed: also at an eighth of the budget, which merges in passes) to
     * load the read's classes and Paimon's generated code, what a second read in the same JVM does
     * not pay again (the live heap it adds is reported as {@code oneTimeBytes}); takes its baseline, then reads {@code TABLE} {@code REPEATS} times under the
     * sampler and prints {@code SURVIVED rows=N checksum=C medianMillis=M liveHeapPeakBytes=B
     * oneTimeBytes=O mergePasses=P sectionsInPasses=S spillBytes=D}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: ReadUnderHeap governed|plain WAREHOUSE TABLE BUDGET_BYTES REPEATS SPILL_DIR");
            System.exit(2);
        }
        String mode = args[0];
        Path warehouse = Path.of(args[1]);
        long budget = Long.parseLong(args[3]);
        int repeats = Integer.parseInt(args[4]);
        Path spill = Files.createDirectories(Path.of(args[5]));
        long cold = LiveHeap.settled();
        // Warm-up: the few-runs table at the budget, and governed at an eighth of it too, so that the
        // merge in passes (its serializers' generated code, the spill codec) is loaded as well.
        FileStoreTable few = table(warehouse, "few");
        read(mode, few, budget, spill);
        if (mode.equals(GOVERNED) && budget / 8 >= WARM_PASSES_BUDGET) {
            read(mode, few, budget / 8, spill);
        }
        FileStoreTable table = table(warehouse, args[2]);
        long baseline = LiveHeap.settled();
        LiveHeapSampler sampler = new LiveHeapSampler(TightHeap.SAMPLE_MILLIS, budget / 32, null);
        sampler.start();
        List<Long> millis = new ArrayList<>();
        Read last = null;
        for (int i = 0; i < repeats; i++) {
            long start = System.nanoTime();
            last = read(mode, table, budget, spill);
            millis.add((System.nanoTime() - start) / 1_000_000);
        }
        sampler.sampleNow();
        sampler.stop();
        ReadSnapshot m = last.metrics();
        System.out.println(SURVIVED + " rows=" + last.rows() + " checksum=" + last.checksum() + " medianMillis=" + BenchTables.median(millis)
                + " liveHeapPeakBytes=" + (sampler.peakBytes() - baseline) + " oneTimeBytes=" + (baseline - cold)
                + " mergePasses=" + (m == null ? 0 : m.mergePasses()) + " sectionsInPasses=" + (m == null ? 0 : m.sectionsInPasses())
                + " spillBytes=" + (m == null ? 0 : m.spillBytes()));
    }

    /** One read's rows, checksum and, governed, metrics (null for plain Paimon). */
    private record Read(long rows, long checksum, ReadSnapshot metrics) {}

    private static FileStoreTable table(Path warehouse, String name) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            return (FileStoreTable) catalog.getTable(Identifier.create("db", name));
        }
    }

    private static Read read(String mode, FileStoreTable table, long budget, Path spill) throws Exception {
        long[] acc = new long[2];
        if (!mode.equals(GOVERNED)) {
            ReadBuilder rb = table.newReadBuilder();
            try (IOManager io = IOManager.create(spill.toString());
                    RecordReader<InternalRow> reader = rb.newRead().withIOManager(io).createReader(rb.newScan().plan())) {
                consume(reader, acc);
            }
            return new Read(acc[0], acc[1], null);
        }
        try (ResourceContext context = ResourceContext.open("bench-read", new HeapGovernanceProvider(),
                        GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, Long.toString(budget),
                                GovernanceOptions.SPILL_DIRS, spill.toString())), EngineEnvironment.standalone());
                GovernedTableRead read = GovernedTableRead.open(table, context)) {
            for (Split split : read.plan()) {
                try (GovernedSplitReader reader = read.reader(split)) {
                    consume(reader, acc);
                }
            }
            return new Read(acc[0], acc[1], read.metrics());
        }
    }

    /** Counts rows into {@code acc[0]} and adds their checksum into {@code acc[1]}. */
    private static void consume(RecordReader<InternalRow> reader, long[] acc) throws Exception {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
            InternalRow row;
            while ((row = batch.next()) != null) {
                acc[0]++;
                acc[1] += row.getInt(0) * 31L + row.getString(1).toString().hashCode();
            }
            batch.releaseBatch();
        }
    }
}
