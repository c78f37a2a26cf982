package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One measurement of the calibration in a child JVM of its own ({@link Calibrate} says why): the
 * child's command line (heap, serial collector), its time limit, and the numbers of the one result
 * line it prints. Not thread-safe: the calibration runs children one after another.
 */
final class ChildRuns {

    /** The child's heap: room for the high writer count of the widest cell, with margin. */
    static final String CHILD_HEAP = "-Xmx2g";
    static final long CHILD_TIMEOUT_SECONDS = 900;

    private ChildRuns() {}

    static Map<String, Long> probeChild(Class<?> probe, String stage, Cell cell, int rowsPerWriter, int writers, Path dir) throws Exception {
        return runChild(probe, FootprintProbe.RESULT, stage + " of " + cell + " at " + writers + " writers", dir,
                cell.kind().label(), cell.format(), cell.compression(), Integer.toString(cell.valueBytes()),
                Integer.toString(cell.pageSize()), Integer.toString(rowsPerWriter), Integer.toString(writers),
                dir.resolve("work").toString());
    }

    /**
     * Runs one cell's child at {@code writers} open writers (spill channels for a spill cell) and
     * returns its result line's numbers.
     */
    static Map<String, Long> child(Cell cell, int rowsPerWriter, int writers, Path dir) throws Exception {
        String what = "cell " + cell + " at " + writers + (cell.kind() == Cell.Kind.SPILL ? " channels" : " writers");
        if (cell.kind() == Cell.Kind.SPILL) {
            return runChild(SpillChannelProbe.class, FootprintProbe.RESULT, what, dir, cell.format(), cell.compression(),
                    Integer.toString(cell.valueBytes()), Integer.toString(cell.pageSize()), Integer.toString(rowsPerWriter),
                    Integer.toString(writers), dir.resolve("work").toString());
        }
        return runChild(FootprintProbe.class, FootprintProbe.RESULT, what, dir,
                cell.kind().label(), cell.format(), cell.compression(), Integer.toString(cell.valueBytes()),
                Integer.toString(cell.pageSize()), Integer.toString(rowsPerWriter), Integer.toString(writers),
                dir.resolve("work").toString());
    }

    /** Runs {@code main} in a child JVM and returns the numbers of its {@code result} line. */
    static Map<String, Long> runChild(Class<?> main, String result, String what, Path dir, String... args) throws Exception {
        Files.createDirectories(dir);
        Path log = dir.resolve("child.log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                CHILD_HEAP));
        command.addAll(ChildJvm.MEASURING_COLLECTOR);
        command.addAll(List.of("-XX:+ExitOnOutOfMemoryError",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        BenchTables.deleteTree(dir);
        String line = output.lines().filter(l -> l.startsWith(result + " ")).findFirst().orElse(null);
        if (process.isAlive() || process.exitValue() != 0 || line == null) {
            throw new IllegalStateException(what + " failed" + (process.isAlive() ? " (timed out)" : "")
                    + "; its output:\n" + output);
        }
        Map<String, Long> values = new HashMap<>();
        for (String pair : line.substring(result.length() + 1).split(" ")) {
            String[] kv = pair.split("=", 2);
            values.put(kv[0], Long.parseLong(kv[1]));
        }
        return values;
    }
}
