package io.paimongov.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import io.paimongov.publishing.Distribution.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator distribution as an operator gets it (docs/distribution.md): the core archive alone on
 * a bare JDK runs {@code providers}, {@code demo} on the heap, native and off-heap providers, {@code tck} and
 * {@code clean}, and holds no engine, benchmark or chart; a command that needs an engine add-on or the
 * lab tool names what to install; with the add-ons unpacked beside it, the engines' providers, {@code
 * sql} and {@code demo} run, the archives together hold one version of each artifact, and an add-on
 * of another release is refused.
 */
class DistributionTest {

    /** What the core must not carry: the engines, Scala, the benchmarks and the charting libraries. */
    private static final List<String> NOT_IN_CORE = List.of(
            "flink-", "spark-", "scala-", "allocator-flink-", "allocator-spark-", "connector-flink-", "connector-spark-",
            "paimon-flink-", "benchmarks-", "jmh-", "jfreechart-", "org.jfree.");

    @TempDir static Path dir;

    private static Distribution core;
    private static Distribution withBoth;

    @BeforeAll
    static void unpackTheCore() throws Exception {
        core = Distribution.unpack(Files.createDirectories(dir.resolve("core")), Distribution.CORE);
    }

    @Test
    void theCoreHoldsTheCliAndItsProvidersButNoEngineBenchmarkOrChart() throws Exception {
        List<String> jars = core.files("lib").stream().filter(n -> n.endsWith(".jar")).toList();

        assertThat(jars).as("lib/ of the core archive")
                .anyMatch(n -> n.startsWith("governance-cli-"))
                .anyMatch(n -> n.startsWith("allocator-heap-"))
                .anyMatch(n -> n.startsWith("allocator-offheap-"))
                .anyMatch(n -> n.startsWith("allocator-native-"))
                .anyMatch(n -> n.startsWith("tck-"))
                .noneMatch(n -> NOT_IN_CORE.stream().anyMatch(n::startsWith));
        assertThat(core.files("")).contains("bin", "conf", "lib", "docs", "README.md").doesNotContain("addons");
        assertThat(Files.isExecutable(core.home().resolve("bin/paimon-governance"))).as("bin/paimon-governance is executable").isTrue();
    }

    @Test
    void theCoreRunsProvidersDemoTckAndCleanOnABareJdk() throws Exception {
        assertThat(providers(core)).containsExactly("heap", "native", "offheap");

        for (String provider : List.of("heap", "native", "offheap")) {
            JsonNode demo = json(core.launch("demo", "--provider", provider, "--rows", "5000", "--keys", "1000", "--json"));
            assertThat(demo.get("provider").asText()).isEqualTo(provider);
            assertThat(demo.get("verified").asBoolean()).as("demo on %s read back its model", provider).isTrue();
        }

        JsonNode kit = json(core.launch("tck", "--provider", "heap", "--rule", "MEM-1", "--rule", "MEM-2", "--tries", "5", "--json"));
        assertThat(kit.get("passed").asInt()).as("rules passed").isEqualTo(2);
        assertThat(kit.get("failed").asInt()).isZero();

        Path warehouse = core.work().resolve("warehouse");
        JsonNode kept = json(core.launch("demo", "--rows", "2000", "--keys", "500", "--warehouse", warehouse.toString(), "--json"));
        assertThat(kept.get("verified").asBoolean()).isTrue();
        Path orphan = plantOrphan(warehouse);
        JsonNode clean = json(core.launch("clean", "--warehouse", warehouse.toString(), "--older-than", "1m", "--json"));
        assertThat(clean.get("orphanFiles").asLong()).as("orphans clean found").isEqualTo(1);
        assertThat(orphan).doesNotExist();
    }

    @Test
    void whatNeedsAnAddOnOrTheLabToolSaysWhatToInstall() throws Exception {
        String flink = "paimon-governance-flink-" + Distribution.VERSION + ".tar.gz";
        String spark = "paimon-governance-spark-" + Distribution.VERSION + ".tar.gz";
        Map<List<String>, String> expected = Map.of(
                List.of("sql", "--engine", "flink", "-e", "SELECT 1"), flink,
                List.of("sql", "--engine", "spark", "-e", "SELECT 1"), spark,
                List.of("demo", "--provider", "spark"), spark,
                List.of("tck", "--provider", "flink"), flink,
                List.of("bench", "scale", "--quick"), "lab tool",
                List.of("demo", "--timeline", core.work().resolve("t.svg").toString()), "lab tool");
        for (Map.Entry<List<String>, String> e : expected.entrySet()) {
            Result run = core.launch(e.getKey().toArray(String[]::new));
            assertThat(run.exit()).as(run.describe()).isEqualTo(2);
            assertThat(run.err()).as(run.describe()).contains(e.getValue()).doesNotContain("NoClassDefFoundError");
        }
    }

    @Test
    void withTheAddOnsTheEnginesRunOnOneClassPath() throws Exception {
        Distribution all = withBothAddOns();

        assertThat(providers(all)).containsExactly("flink", "heap", "native", "offheap", "spark");
        Result sql = all.launch("sql", "--engine", "flink", "-e",
                "CREATE TABLE governed.`default`.t (k INT PRIMARY KEY NOT ENFORCED, v STRING);"
                        + " INSERT INTO governed.`default`.t VALUES (1, 'one'), (2, 'two');"
                        + " INSERT INTO governed.`default`.t VALUES (1, 'uno');"
                        + " SELECT v FROM governed.`default`.t ORDER BY k", "--json");
        assertThat(sql.exit()).as(sql.describe()).isZero();
        List<String> lines = sql.out().lines().toList();
        JsonNode select = Json.parse(lines.get(lines.size() - 1));
        assertThat(select.get("rows").toString()).as(sql.out()).isEqualTo("[[\"uno\"],[\"two\"]]");

        JsonNode demo = json(all.launch("demo", "--provider", "spark", "--rows", "5000", "--keys", "1000", "--json"));
        assertThat(demo.get("verified").asBoolean()).as("demo on Spark read back its model").isTrue();

        assertThat(versionsOfOneArtifact(all)).as("artifacts at two versions across lib/ and addons/*/lib/").isEmpty();
    }

    @Test
    void theSparkAddOnAloneRunsOnTheCoresPaimon() throws Exception {
        Distribution spark = Distribution.unpack(Files.createDirectories(dir.resolve("spark")),
                Distribution.CORE, Distribution.addOn("spark"));

        assertThat(providers(spark)).containsExactly("heap", "native", "offheap", "spark");
        JsonNode demo = json(spark.launch("demo", "--provider", "spark", "--rows", "5000", "--keys", "1000", "--json"));
        assertThat(demo.get("verified").asBoolean()).isTrue();
    }

    @Test
    void anAddOnOfAnotherReleaseIsRefusedNamingTheJar() throws Exception {
        Path stale = core.home().resolve("addons/stale");
        Files.createDirectories(stale.resolve("lib"));
        Files.writeString(stale.resolve("classpath"), "lib/governance-cli-0.0.1.jar:lib/stale-1.0.jar");
        try {
            Result run = core.launch("providers");
            assertThat(run.exit()).as(run.describe()).isEqualTo(3);
            assertThat(run.err()).contains("governance-cli-0.0.1.jar", "one release");
        } finally {
            Files.delete(stale.resolve("classpath"));
            Files.delete(stale.resolve("lib"));
            Files.delete(stale);
            Files.delete(core.home().resolve("addons"));
        }
    }

    @Test
    void theDocumentedSizesAndJarCountsAreTheBuilds() throws Exception {
        Map<String, Path> archives = Map.of(
                "paimon-governance-VERSION.tar.gz", Distribution.CORE,
                "paimon-governance-flink-VERSION.tar.gz", Distribution.addOn("flink"),
                "paimon-governance-spark-VERSION.tar.gz", Distribution.addOn("spark"));
        Map<String, Path> libs = Map.of(
                "paimon-governance-VERSION.tar.gz", Path.of("lib"),
                "paimon-governance-flink-VERSION.tar.gz", Path.of("addons/flink/lib"),
                "paimon-governance-spark-VERSION.tar.gz", Path.of("addons/spark/lib"));
        Pattern row = Pattern.compile("\\| `(paimon-governance[a-z-]*-VERSION\\.tar\\.gz)` \\|.*\\| ([0-9.]+) MB \\| ([0-9]+) \\|");
        Distribution all = withBothAddOns();
        Map<String, Matcher> documented = new HashMap<>();
        for (String line : Files.readAllLines(Distribution.ROOT.resolve("docs/distribution.md"))) {
            Matcher m = row.matcher(line);
            if (m.matches()) {
                documented.put(m.group(1), m);
            }
        }
        assertThat(documented).as("rows of docs/distribution.md's table of archives").containsOnlyKeys(archives.keySet());
        for (Map.Entry<String, Path> archive : archives.entrySet()) {
            Matcher m = documented.get(archive.getKey());
            double megabytes = Files.size(archive.getValue()) / 1e6;
            long jars;
            try (Stream<Path> files = Files.list(all.home().resolve(libs.get(archive.getKey())))) {
                jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).count();
            }
            assertThat(Double.parseDouble(m.group(2))).as("documented size of %s; built: %.1f MB", archive.getKey(), megabytes)
                    .isBetween(megabytes * 0.9, megabytes * 1.1);
            assertThat(Long.parseLong(m.group(3))).as("documented jars of %s", archive.getKey()).isEqualTo(jars);
        }
    }

    /** The core with both add-ons, unpacked once for the tests that read it. */
    private static Distribution withBothAddOns() throws Exception {
        if (withBoth == null) {
            withBoth = Distribution.unpack(Files.createDirectories(dir.resolve("all")),
                    Distribution.CORE, Distribution.addOn("flink"), Distribution.addOn("spark"));
        }
        return withBoth;
    }

    private static List<String> providers(Distribution d) throws Exception {
        JsonNode listed = json(d.launch("providers", "--json"));
        List<String> names = new ArrayList<>();
        listed.get("providers").forEach(p -> names.add(p.get("name").asText()));
        return names;
    }

    private static JsonNode json(Result run) throws Exception {
        assertThat(run.exit()).as(run.describe()).isZero();
        return Json.parse(run.out());
    }

    /** A file no snapshot references, an hour old, in a bucket directory of the warehouse's table. */
    private static Path plantOrphan(Path warehouse) throws Exception {
        Path bucket;
        try (Stream<Path> dirs = Files.walk(warehouse)) {
            bucket = dirs.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("bucket-"))
                    .findFirst().orElseThrow(() -> new AssertionError("no bucket directory under " + warehouse));
        }
        Path orphan = Files.writeString(bucket.resolve("data-planted-orphan-0.parquet"), "left by a killed writer");
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(1, ChronoUnit.HOURS)));
        return orphan;
    }

    /**
     * Artifacts found at more than one version, from the jars' file names (Maven names a copied jar
     * {@code artifactId-version[-classifier].jar}; the version starts at the first "-digit").
     */
    private static Map<String, TreeSet<String>> versionsOfOneArtifact(Distribution d) throws Exception {
        Pattern jar = Pattern.compile("(.+?)-(\\d[^-]*)(-.*)?\\.jar");
        Map<String, TreeSet<String>> versions = new HashMap<>();
        List<Path> libs = new ArrayList<>(List.of(d.home().resolve("lib")));
        for (String addOn : d.files("addons")) {
            libs.add(d.home().resolve("addons").resolve(addOn).resolve("lib"));
        }
        for (Path lib : libs) {
            try (Stream<Path> files = Files.list(lib)) {
                for (Path f : files.toList()) {
                    Matcher m = jar.matcher(f.getFileName().toString());
                    if (m.matches()) {
                        versions.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
                    }
                }
            }
        }
        versions.values().removeIf(v -> v.size() == 1);
        return versions;
    }
}
