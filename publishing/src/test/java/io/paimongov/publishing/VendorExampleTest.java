package io.paimongov.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * The vendor example under examples/vendor-allocator, built as a vendor builds it: its own POM (the
 * one the README shows) importing the BOM, with every io.paimongov artifact resolved from the
 * repository this build deployed into, never from a local install; then the kit run by surefire in
 * that build and by the CLI's jar on the example's jar must give every rule the same verdict.
 */
class VendorExampleTest {

    private static final Path ROOT = Path.of(System.getProperty("project.root"));
    private static final Path EXAMPLE = ROOT.resolve("examples/vendor-allocator");
    private static final String PROVIDER = "example-frames";
    /** How a kit rule's test is named: {@code required_MEM10_...} or, from a jqwik label, {@code required MEM5 ...}. */
    private static final Pattern RULE_TEST = Pattern.compile("^(?:required|optional)[ _]([A-Z]+)(\\d+)[ _]");

    @TempDir
    static Path work;

    private static Path build;
    private static Path repository;

    @BeforeAll
    static void buildTheExample() throws Exception {
        build = work.resolve("vendor-allocator");
        copy(EXAMPLE, build);
        repository = work.resolve("m2");
        Path settings = work.resolve("settings.xml");
        Files.writeString(settings, settings(StagedRepository.ofThisBuild().root(), Path.of(System.getProperty("maven.repo.local"))));
        Path log = work.resolve("example-build.log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("maven.home"), "bin", "mvn").toString(),
                "-B", "-s", settings.toString(), "-Dmaven.repo.local=" + repository,
                // the verdicts are compared below, so a failing rule must not stop the build first
                "-Dmaven.test.failure.ignore=true"));
        command.addAll(kitProperties());
        command.add("verify");
        Process maven = new ProcessBuilder(command).directory(build.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = maven.waitFor(20, TimeUnit.MINUTES);
        if (!ended) {
            maven.destroyForcibly().waitFor();
        }
        assertThat(ended ? maven.exitValue() : -1).as("the example's build (%s), ending:%n%s", command, tail(Files.readString(log)))
                .isZero();
    }

    @Test
    void theReadmeShowsTheExamplesPom() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher blocks = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        List<String> poms = new ArrayList<>();
        while (blocks.find()) {
            if (blocks.group(1).contains("<artifactId>governance-bom</artifactId>")) {
                poms.add(blocks.group(1).strip());
            }
        }
        assertThat(poms).as("the README's POM that imports the BOM").containsExactly(Files.readString(EXAMPLE.resolve("pom.xml")).strip());
    }

    @Test
    void everyProjectArtifactCameFromTheStagedRepository() throws Exception {
        Path ours = repository.resolve(StagedRepository.GROUP.replace('.', '/'));
        List<String> resolved;
        try (Stream<Path> artifacts = Files.list(ours)) {
            resolved = artifacts.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(resolved).contains("governance-bom", "governance-spi", "allocator-support", "tck");
        for (String artifact : resolved) {
            Path version = ours.resolve(artifact).resolve(System.getProperty("project.version"));
            // the resolver keeps a snapshot's metadata per repository it came from
            assertThat(version.resolve("maven-metadata-staging.xml")).as(artifact + " resolved from the staging repository").isRegularFile();
        }
    }

    @Test
    void theKitGivesTheSameVerdictsBySurefireAndByTheCli() throws Exception {
        Map<String, String> bySurefire = surefireVerdicts(build.resolve("target/surefire-reports"));
        Path jar = build.resolve("target/vendor-allocator-1.0.jar");
        JsonNode report = cliReport(jar);
        Map<String, String> byCli = new TreeMap<>();
        report.get("rules").forEach(rule -> byCli.put(rule.get("id").asText(), rule.get("status").asText()));

        assertThat(bySurefire).as("rules run by surefire").isNotEmpty();
        assertThat(byCli).as("the CLI's verdicts against surefire's").isEqualTo(bySurefire);
        assertThat(report.get("requiredPassed").asBoolean()).as("the example conforms (the CLI's report)").isTrue();
        assertThat(report.get("provider").asText()).isEqualTo(PROVIDER);
    }

    /** Each rule's verdict from surefire's reports: FAILED if a test of it failed, SKIPPED if all were skipped. */
    private static Map<String, String> surefireVerdicts(Path reports) throws Exception {
        Map<String, String> verdicts = new TreeMap<>();
        try (Stream<Path> files = Files.list(reports)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).toList()) {
                for (Element testcase : elements(Poms.read(file), "testcase")) {
                    Matcher rule = RULE_TEST.matcher(testcase.getAttribute("name"));
                    if (!rule.find()) {
                        continue;
                    }
                    String status = !Poms.children(testcase, "failure").isEmpty() || !Poms.children(testcase, "error").isEmpty()
                            ? "FAILED"
                            : !Poms.children(testcase, "skipped").isEmpty() ? "SKIPPED" : "PASSED";
                    verdicts.merge(rule.group(1) + "-" + rule.group(2), status, VendorExampleTest::worse);
                }
            }
        }
        return verdicts;
    }

    private static String worse(String a, String b) {
        List<String> order = List.of("PASSED", "SKIPPED", "FAILED");
        return order.indexOf(a) >= order.indexOf(b) ? a : b;
    }

    private static List<Element> elements(Element root, String name) {
        List<Element> found = new ArrayList<>();
        var nodes = root.getElementsByTagName(name);
        for (int i = 0; i < nodes.getLength(); i++) {
            found.add((Element) nodes.item(i));
        }
        return found;
    }

    /** {@code tck --json} of the CLI's own jar (its manifest's class path is target/lib) on the example's jar. */
    private static JsonNode cliReport(Path vendorJar) throws Exception {
        Path cli;
        try (Stream<Path> jars = Files.list(ROOT.resolve("governance-cli/target"))) {
            cli = jars.filter(p -> p.getFileName().toString().matches("governance-cli-[^-]+(-SNAPSHOT)?\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no CLI jar in governance-cli/target"));
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g"));
        command.addAll(kitProperties());
        command.addAll(List.of("-jar", cli.toString(), "tck", "--provider", PROVIDER, "--classpath", vendorJar.toString(), "--json"));
        Path out = work.resolve("cli-tck.json");
        Path err = work.resolve("cli-tck.err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = process.waitFor(20, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        assertThat(ended).as("the CLI's tck run ended; stderr:%n%s", tail(Files.readString(err))).isTrue();
        assertThat(process.exitValue()).as("the CLI's exit code (%s); stderr:%n%s", command, tail(Files.readString(err))).isZero();
        return Json.parse(Files.readString(out));
    }

    /** The kit's sizes the two runs share (module publishing's pom sets them small for CI). */
    private static final List<String> KIT_SIZES = List.of("tries", "write-tries", "rows", "race-rounds", "overlap-rounds", "overlaps");

    /** The kit's sizes as system properties, which the kit reads in surefire's JVM and in the CLI's alike. */
    private static List<String> kitProperties() {
        return KIT_SIZES.stream()
                .map(key -> "-Dgovernance.tck." + key + "=" + System.getProperty("governance.example.tck." + key))
                .toList();
    }

    /**
     * The example's repositories: the staging repository, for this project's snapshots alone, then
     * this build's own local repository read as a remote one for everything else (Paimon, Hadoop, the
     * kit's test libraries, the plugins), so that nothing of ours can come from an install.
     */
    private static String settings(Path staging, Path localCache) {
        String cache = "<id>build-cache</id><url>" + localCache.toUri() + "</url>"
                + "<releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots>";
        return """
                <settings>
                  <profiles>
                    <profile>
                      <id>staged</id>
                      <repositories>
                        <repository><id>staging</id><url>%s</url>
                          <releases><enabled>false</enabled></releases><snapshots><enabled>true</enabled></snapshots></repository>
                        <repository>%s</repository>
                      </repositories>
                      <pluginRepositories>
                        <pluginRepository>%s</pluginRepository>
                      </pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>staged</activeProfile></activeProfiles>
                </settings>
                """.formatted(staging.toUri(), cache, cache);
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path relative = from.relativize(file);
                if (relative.startsWith("target")) {
                    continue;
                }
                Path target = to.resolve(relative.toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }

    private static String tail(String text) {
        String[] lines = text.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
    }
}
