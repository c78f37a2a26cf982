package io.paimongov.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operator distribution's archives as this build left them (module governance-dist and its
 * add-on modules), unpacked with {@code tar} as an operator would, and run through their launcher on
 * a bare environment: only {@code PATH=/usr/bin:/bin}, {@code JAVA_HOME} (this JVM's) and {@code HOME},
 * nothing of Maven's or the build's.
 *
 * <p>Not thread-safe; one per test class.
 */
final class Distribution {

    static final Path ROOT = Path.of(System.getProperty("project.root"));
    static final String VERSION = System.getProperty("project.version");

    /** The core archive. */
    static final Path CORE = ROOT.resolve("governance-dist/target/paimon-governance-" + VERSION + ".tar.gz");

    /** An add-on's archive: {@code flink} or {@code spark}. */
    static Path addOn(String name) {
        return ROOT.resolve("governance-dist/governance-dist-" + name + "/target/paimon-governance-" + name + "-" + VERSION + ".tar.gz");
    }

    private final Path home;
    private final Path work;

    private Distribution(Path home, Path work) {
        this.home = home;
        this.work = work;
    }

    /** The archives unpacked, in this order, into {@code dir}: the core first, then add-ons. */
    static Distribution unpack(Path dir, Path... archives) throws Exception {
        for (Path archive : archives) {
            assertThat(archive).as("the archive the build packs").isRegularFile();
            Result tar = run(dir, List.of("tar", "xzf", archive.toString()), Map.of());
            assertThat(tar.exit()).as("tar xzf %s: %s", archive, tar.err()).isZero();
        }
        Path home = dir.resolve("paimon-governance-" + VERSION);
        Path work = Files.createDirectories(dir.resolve("work"));
        return new Distribution(home, work);
    }

    /** Where the archives put bin/, conf/, lib/ and addons/. */
    Path home() {
        return home;
    }

    /** A directory for the runs' warehouses and files. */
    Path work() {
        return work;
    }

    /** The names of the files in {@code dir} under the distribution's home. */
    List<String> files(String dir) throws IOException {
        try (Stream<Path> files = Files.list(home.resolve(dir))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** {@code bin/paimon-governance args...} on the bare environment. */
    Result launch(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/paimon-governance").toString());
        command.addAll(List.of(args));
        return run(work, command, Map.of(
                "PATH", "/usr/bin:/bin",
                "JAVA_HOME", System.getProperty("java.home"),
                "HOME", work.toString()));
    }

    private static Result run(Path dir, List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        if (!env.isEmpty()) {
            builder.environment().clear();
            builder.environment().putAll(env);
        }
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = process.waitFor(10, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        Result result = new Result(ended ? process.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), command);
        Files.delete(out);
        Files.delete(err);
        assertThat(ended).as("%s ended within 10 minutes; stderr:%n%s", command, result.err()).isTrue();
        return result;
    }

    /** What one run printed and how it ended. */
    record Result(int exit, String out, String err, List<String> command) {

        /** For assertion messages: the command and the end of its stderr. */
        String describe() {
            String tail = err.length() > 4000 ? "..." + err.substring(err.length() - 4000) : err;
            return String.join(" ", command) + " exited " + exit + "; stderr:\n" + tail;
        }
    }
}
