package io.paimongov.reliability;

import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;

/**
 * The process the matrix kills: a child JVM (the same {@code java}, JVM flags and class path as the
 * test) that opens a governed write on the cell's table with the cell's allocator on its own
 * standalone engine over the cell's directories, writes until its spill scope holds spill files,
 * says where the scope is, and goes on writing until it is killed. It never commits.
 *
 * <p>{@link #runAndKill} is the parent's side: start it, wait for the scope, {@code
 * destroyForcibly()} (SIGKILL on Linux), wait for the exit.
 */
final class KilledWriter {

    /** What the parent saw. */
    record Result(boolean killed, int exitCode, Path scope, long spillFilesAtKill, String note) {
        String describe() {
            return (killed ? "KILLED" : "NOT KILLED") + " (exit " + exitCode + ")" + (note.isEmpty() ? "" : ": " + note);
        }
    }

    private static final long READY_TIMEOUT_SECONDS = 180;

    private KilledWriter() {}

    /** The child's entry point: allocator, engine dir, spill root, warehouse, rows, seed, budget, scope file. */
    public static void main(String[] args) throws Exception {
        Allocator allocator = Allocator.of(args[0]);
        Path engineDir = Path.of(args[1]);
        Path spillRoot = Path.of(args[2]);
        Path warehouse = Path.of(args[3]);
        int rows = Integer.parseInt(args[4]);
        long seed = Long.parseLong(args[5]);
        long budget = Long.parseLong(args[6]);
        Path scopeFile = Path.of(args[7]);
        GovernanceProvider provider = allocator.provider();
        StandaloneEngine engine = provider.standalone(budget, engineDir).orElseThrow();
        FileStoreTable table = Tables.open(warehouse, World.TABLE);
        GovernanceOptions options =
                GovernanceOptions.of(
                        Map.of(
                                GovernanceOptions.MEMORY_BUDGET, Long.toString(budget),
                                GovernanceOptions.PAGE_SIZE, "16k",
                                GovernanceOptions.SPILL_DIRS, spillRoot.toString()));
        ResourceContext context = ResourceContext.open("killed-writer", provider, options, engine.environment());
        GovernedTableWrite write = GovernedTableWrite.batch(table, context);
        Tables.Workload workload = Tables.Workload.random(seed, rows);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS * 2);
        boolean told = false;
        long written = 0;
        while (System.nanoTime() < deadline) {
            write.write(workload.rows().get((int) (written % rows)));
            written++;
            if (!told && spillFiles(context.spillScopeDir()) > 0) {
                Path tmp = scopeFile.resolveSibling(scopeFile.getFileName() + ".tmp");
                Files.writeString(tmp, context.spillScopeDir().toString(), StandardCharsets.UTF_8);
                Files.move(tmp, scopeFile, StandardCopyOption.ATOMIC_MOVE);
                told = true;
            }
            if (told && written > 2L * rows) {
                Thread.sleep(10);
            }
        }
        System.err.println("never killed");
        System.exit(3);
    }

    static long spillFiles(Path scope) throws IOException {
        if (!Files.isDirectory(scope)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(scope)) {
            return files.filter(p -> p.toString().endsWith(".channel")).count();
        }
    }

    /** Starts the child on {@code world}'s directories, kills it once it has spilled, and reports. */
    static Result runAndKill(World world, long seed, Path scopeFile, Path log) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-javaagent") && !arg.startsWith("-agentlib") && !arg.startsWith("-Xrunjdwp")) {
                command.add(arg);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KilledWriter.class.getName());
        command.add(world.allocator.id);
        command.add(world.engineDir.toString());
        command.add(world.spillRoot.toString());
        command.add(world.warehouse.toString());
        command.add(Integer.toString(world.settings.rows()));
        command.add(Long.toString(seed));
        command.add(Long.toString(world.settings.budgetBytes()));
        command.add(scopeFile.toString());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
            while (!Files.exists(scopeFile) && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (!Files.exists(scopeFile)) {
                String why = child.isAlive() ? "no spill within " + READY_TIMEOUT_SECONDS + " s" : "the child ended first, exit " + child.exitValue();
                return new Result(false, child.isAlive() ? -1 : child.exitValue(), null, 0, why + "; log " + log);
            }
            Path scope = Path.of(Files.readString(scopeFile, StandardCharsets.UTF_8));
            boolean aliveAtKill = child.isAlive();
            child.destroyForcibly();
            boolean ended = child.waitFor(60, TimeUnit.SECONDS);
            int exit = ended ? child.exitValue() : -1;
            long files = spillFiles(scope);
            // 137 = 128 + SIGKILL: the JVM got no chance to run a shutdown hook or a finally block.
            boolean killed = aliveAtKill && ended && exit == 137;
            return new Result(killed, exit, scope, files, "pid " + child.pid() + ", scope " + scope.getFileName());
        } finally {
            child.destroyForcibly();
        }
    }
}
