package io.paimongov.benchmarks.cancel;

import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * One engine's pairs in a JVM of their own ({@link JobCancelBench} starts it): a Flink MiniCluster
 * ({@link JobCancel}) or a local Spark ({@link SparkCancel}) lives and dies with the JVM, with a
 * fixed heap and its log in the child's log file, and the other engine's threads and class state
 * never share it.
 *
 * <p>Arguments: {@code flink WORK_DIR RESULT_FILE ROWS CANCEL_AFTER PAIRS MANAGED_MEMORY_BYTES
 * BUCKETS} or {@code spark WORK_DIR RESULT_FILE ROWS CANCEL_AFTER PAIRS MEMORY_BYTES BUCKETS
 * PARTITIONS}. Progress lines go to stdout; the samples go to the result file ({@link #write}); a
 * failure prints {@value #FAILED} and the error, and exits 1.
 */
public final class CancelChild {

    static final String FAILED = "FAILED";

    private CancelChild() {}

    public static void main(String[] args) {
        try {
            Path workDir = Path.of(args[1]);
            long rows = Long.parseLong(args[3]);
            long cancelAfter = Long.parseLong(args[4]);
            int pairs = Integer.parseInt(args[5]);
            long memory = Long.parseLong(args[6]);
            int buckets = Integer.parseInt(args[7]);
            CancelSample.Result result = switch (args[0]) {
                case "flink" -> JobCancel.run(workDir, new JobCancel.Settings(rows, cancelAfter, pairs, memory, buckets),
                        new PaimonSinkJob(), new GovernedSinkJob(), CancelChild::progress);
                case "spark" -> SparkCancel.run(workDir,
                        new SparkCancel.Settings(rows, cancelAfter, pairs, Integer.parseInt(args[8]), memory, buckets), CancelChild::progress);
                default -> throw new IllegalArgumentException("engine must be flink or spark: " + args[0]);
            };
            write(result, Path.of(args[2]));
            System.exit(0);
        } catch (Throwable t) {
            System.out.println(FAILED + " " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void progress(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /**
     * Writes {@code result} as properties: {@code engine}, and per side ({@code paimon}, {@code
     * governed}) {@code SIDE.count} and {@code SIDE.N} = the sample's fields, comma-separated, in
     * record order ({@link Leftovers}' fields in place of {@code left}).
     */
    static void write(CancelSample.Result result, Path file) throws Exception {
        Properties p = new Properties();
        p.setProperty("engine", result.engine());
        put(p, "paimon", result.paimon());
        put(p, "governed", result.governed());
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, null);
        }
    }

    /** Reads what {@link #write} wrote. */
    static CancelSample.Result read(Path file) throws Exception {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        }
        return new CancelSample.Result(p.getProperty("engine"), get(p, "paimon"), get(p, "governed"));
    }

    private static void put(Properties p, String side, List<CancelSample> samples) {
        p.setProperty(side + ".count", Integer.toString(samples.size()));
        for (int i = 0; i < samples.size(); i++) {
            CancelSample s = samples.get(i);
            Leftovers l = s.left();
            p.setProperty(side + "." + i, s.tasksMillis() + "," + s.jobMillis() + "," + s.tasks() + "," + s.tasksCancelled() + ","
                    + s.rowsAtCancel() + "," + l.snapshot() + "," + l.spillScopes() + "," + l.memoryBack() + "," + l.dataFiles());
        }
    }

    private static List<CancelSample> get(Properties p, String side) {
        int count = Integer.parseInt(p.getProperty(side + ".count"));
        List<CancelSample> samples = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String[] f = p.getProperty(side + "." + i).split(",");
            samples.add(new CancelSample(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                    Long.parseLong(f[4]), new Leftovers(Boolean.parseBoolean(f[5]), Long.parseLong(f[6]), Boolean.parseBoolean(f[7]),
                            Long.parseLong(f[8]))));
        }
        return samples;
    }
}
