package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spilling governed write writes nothing outside the warehouse and the spill root: a child JVM
 * ({@link SpillingWriteMain}) runs the write with {@code java.io.tmpdir} pointed at a fresh empty
 * directory; afterwards that directory is still empty, the spill root holds exactly what it held
 * before, and every new path under the common parent of warehouse, spill root and temp dir is inside
 * the warehouse.
 */
@Tag("reliability")
class NothingOutsideTheRootsTest {

    @TempDir Path dir;

    @Test
    void aSpillingWriteTouchesOnlyTheWarehouseAndItsSpillScope() throws Exception {
        Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
        Path spillRoot = Files.createDirectories(dir.resolve("spill-root"));
        Path tmp = Files.createDirectories(dir.resolve("jvm-tmp"));
        Files.writeString(spillRoot.resolve("someone-elses-file"), "kept");
        Set<String> before = tree(dir);

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-XX:-UsePerfData");
        command.add("-Djava.io.tmpdir=" + tmp);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SpillingWriteMain.class.getName());
        command.add(warehouse.toString());
        command.add(spillRoot.toString());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).containsPattern("spillFiles=[1-9]");

        Set<String> after = tree(dir);
        assertThat(tree(tmp)).as("left in java.io.tmpdir").isEmpty();
        Set<String> removed = new TreeSet<>(before);
        removed.removeAll(after);
        assertThat(removed).as("removed").isEmpty();
        Set<String> added = new TreeSet<>(after);
        added.removeAll(before);
        assertThat(added).as("new paths").isNotEmpty().allMatch(p -> p.startsWith("warehouse/"));
        assertThat(tree(spillRoot)).containsExactly("someone-elses-file");
    }

    /** Every path under {@code root}, relative, directories included. */
    private static Set<String> tree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> !p.equals(root))
                    .map(p -> root.relativize(p).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
