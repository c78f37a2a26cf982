package io.paimongov.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The layers of docs/architecture.md, checked on the main classes of every module: a class that
 * reaches across a layer fails the build with ArchUnit's list of the offending dependencies.
 *
 * <pre>
 *   cli, benchmarks            (top: may use everything below)
 *   tck                        (spi, runtime; finds allocators through the SPI only, never allocator.support)
 *   connector.flink, connector.spark  (connectors: spi, runtime, their own allocator)
 *   runtime                    (spi)
 *   heap, offheap, flink, spark, native  (allocators: spi, allocator.support and their engine only)
 *   allocator.support          (helpers for vendors: spi only)
 *   spi                        (nothing of ours; the contract, 12 public types at most)
 * </pre>
 */
class LayersTest {

    private static final String SPI = "io.paimongov.spi..";
    private static final String SUPPORT = "io.paimongov.allocator.support..";
    /**
     * The contract's types, as docs/spi.md ("The contract's types") lists them; a nested type counts
     * with its owner.
     */
    private static final Set<String> CONTRACT = Set.of(
            "GovernanceProvider", "ProviderOptions", "EngineEnvironment", "EngineResources", "SegmentAllocator",
            "CancellationSignal", "MetricsReporter", "metrics.MetricsSnapshot", "ResourceExhaustedException",
            "WriteCancelledException", "GovernanceClosedException", "CleanupException");
    private static final int MOST_SPI_TYPES = 12;
    private static final int MOST_LINES = 400;
    private static final String RUNTIME = "io.paimongov.runtime..";
    private static final String RUNTIME_INTERNAL = "io.paimongov.runtime.internal..";
    private static final String TCK = "io.paimongov.tck..";
    private static final String CLI = "io.paimongov.cli..";
    private static final String BENCHMARKS = "io.paimongov.benchmarks..";
    private static final String FLINK_CONNECTOR = "io.paimongov.connector.flink..";
    private static final String SPARK_CONNECTOR = "io.paimongov.connector.spark..";
    /** The allocator modules' packages, with every package below them. */
    private static final String[] ALLOCATORS = {
        "io.paimongov.heap..", "io.paimongov.offheap..", "io.paimongov.flink..", "io.paimongov.spark..", "io.paimongov.nativehost.."
    };

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.paimongov");
    }

    /** The import must see every layer, or a rule over an empty set would pass by default. */
    @Test
    void everyLayerIsImported() {
        Set<String> packages = classes.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertThat(packages).contains(
                "io.paimongov.spi", "io.paimongov.spi.metrics", "io.paimongov.allocator.support",
                "io.paimongov.allocator.support.standalone", "io.paimongov.runtime", "io.paimongov.runtime.write", "io.paimongov.runtime.read",
                "io.paimongov.runtime.internal.compaction", "io.paimongov.runtime.memory", "io.paimongov.runtime.internal.memory",
                "io.paimongov.tck", "io.paimongov.cli", "io.paimongov.benchmarks",
                "io.paimongov.connector.flink.sink", "io.paimongov.connector.flink.read", "io.paimongov.connector.spark", "io.paimongov.connector.spark.write",
                "io.paimongov.connector.spark.sql", "io.paimongov.connector.spark.read",
                "io.paimongov.heap", "io.paimongov.offheap", "io.paimongov.flink", "io.paimongov.spark", "io.paimongov.nativehost");
    }

    @Test
    void theSpiImportsNothingOfOurs() {
        check(noClasses().that().resideInAPackage(SPI)
                .should().dependOnClassesThat().resideInAnyPackage(
                        SUPPORT, RUNTIME, TCK, CLI, BENCHMARKS, FLINK_CONNECTOR, SPARK_CONNECTOR, "io.paimongov.heap..",
                        "io.paimongov.offheap..", "io.paimongov.flink..", "io.paimongov.spark..", "io.paimongov.nativehost..")
                .because("governance-spi is what a vendor compiles against: only what it implements or receives"));
    }

    /**
     * The SPI is the contract and nothing else: at most {@value #MOST_SPI_TYPES} public top-level
     * types, each one docs/spi.md lists. Read from the compiled classes; a nested type (a builder, a
     * value an interface hands out) counts with its owner. A helper for implementors belongs in
     * allocator-support.
     */
    @Test
    void theSpiHoldsTheContractsTypesOnly() {
        List<String> types = classes.stream()
                .filter(c -> c.getPackageName().startsWith("io.paimongov.spi"))
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC))
                .map(c -> c.getName().substring("io.paimongov.spi.".length()))
                .sorted()
                .toList();
        List<String> beyond = types.stream().filter(t -> !CONTRACT.contains(t)).toList();
        assertThat(beyond)
                .as("public types of governance-spi that docs/spi.md does not list as the contract's; move a"
                        + " helper to allocator-support, or nest a type in the one it belongs to")
                .isEmpty();
        assertThat(types)
                .as("governance-spi's %d public top-level types, nested ones counted with their owner: at most %d",
                        types.size(), MOST_SPI_TYPES)
                .hasSizeLessThanOrEqualTo(MOST_SPI_TYPES)
                .hasSizeGreaterThanOrEqualTo(1);
    }

    /** The vendor kit stands on the SPI alone, so a vendor who uses it takes nothing else of ours. */
    @Test
    void theSupportKitImportsTheSpiOnly() throws Exception {
        check(noClasses().that().resideInAPackage(SUPPORT)
                .should().dependOnClassesThat().resideInAnyPackage(
                        RUNTIME, TCK, CLI, BENCHMARKS, FLINK_CONNECTOR, SPARK_CONNECTOR, "io.paimongov.heap..",
                        "io.paimongov.offheap..", "io.paimongov.flink..", "io.paimongov.spark..",
                        "io.paimongov.nativehost..", "io.paimongov.fixtures..", "io.paimongov.reliability..")
                .because("allocator-support holds base classes for vendors, on top of governance-spi only"));
        assertThat(oursOutsideTestScope("allocator-support")).as("allocator-support's modules of ours outside test scope")
                .containsExactly("governance-spi");
    }

    /** The contract and the kit read in small files: no main source file over {@value #MOST_LINES} lines. */
    @Test
    void theSpiAndTheSupportKitHaveSmallFiles() throws Exception {
        List<String> tooLong = new ArrayList<>();
        for (String module : List.of("governance-spi", "allocator-support")) {
            Path sources = root().resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    long lines = Files.readAllLines(file).size();
                    if (lines > MOST_LINES) {
                        tooLong.add(root().relativize(file) + " (" + lines + " lines)");
                    }
                }
            }
        }
        assertThat(tooLong).as("main files over %d lines", MOST_LINES).isEmpty();
    }

    @Test
    void allocatorsImportTheSpiOnly() {
        for (String allocator : ALLOCATORS) {
            String[] others = Arrays.stream(ALLOCATORS)
                    .filter(a -> !a.equals(allocator))
                    .toArray(String[]::new);
            check(noClasses().that().resideInAPackage(allocator)
                    .should().dependOnClassesThat().resideInAnyPackage(RUNTIME, TCK, CLI, BENCHMARKS, FLINK_CONNECTOR, SPARK_CONNECTOR)
                    .orShould().dependOnClassesThat().resideInAnyPackage(others)
                    .because("an allocator implements the SPI over its engine; it never reaches into the runtime or another allocator"));
        }
    }

    /**
     * The same layer as Maven sees it: an allocator module's modules of ours outside test scope are
     * governance-spi and, if it wants the base classes, allocator-support (a vendor who embeds the
     * allocator takes nothing of the runtime or a connector).
     */
    @Test
    void allocatorModulesDependOnTheSpiAndTheKitAlone() throws Exception {
        for (String module : List.of("allocator-heap", "allocator-offheap", "allocator-flink", "allocator-spark", "allocator-native")) {
            assertThat(oursOutsideTestScope(module)).as(module + "'s modules of ours outside test scope")
                    .contains("governance-spi")
                    .isSubsetOf("governance-spi", "allocator-support");
        }
    }

    /**
     * The runtime calls allocators through the SPI and needs none of the vendor kit: allocator-support
     * is at most a test dependency of governance-runtime (its tests build test allocators on it).
     */
    @Test
    void theRuntimeModuleDependsOnTheSpiAlone() throws Exception {
        assertThat(oursOutsideTestScope("governance-runtime")).as("governance-runtime's modules of ours outside test scope")
                .containsExactly("governance-spi");
    }

    private static Path root() {
        return Path.of(System.getProperty("basedir", "."), "..").normalize();
    }

    /** The artifactIds of our modules that {@code module}'s pom depends on outside test scope. */
    private static List<String> oursOutsideTestScope(String module) throws Exception {
        NodeList dependencies = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(root().resolve(module).resolve("pom.xml").toFile())
                .getElementsByTagName("dependency");
        List<String> ours = new ArrayList<>();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String scope = childText(dependency, "scope");
            if (childText(dependency, "groupId").equals("io.paimongov") && !scope.equals("test")) {
                ours.add(childText(dependency, "artifactId"));
            }
        }
        return ours;
    }

    private static String childText(Element element, String name) {
        NodeList children = element.getElementsByTagName(name);
        return children.getLength() == 0 ? "" : children.item(0).getTextContent().trim();
    }

    @Test
    void theRuntimeNeverImportsAnAllocatorOrWhatSitsOnTop() {
        check(noClasses().that().resideInAPackage(RUNTIME)
                .should().dependOnClassesThat().resideInAnyPackage(
                        SUPPORT, TCK, CLI, BENCHMARKS, FLINK_CONNECTOR, SPARK_CONNECTOR, "io.paimongov.heap..",
                        "io.paimongov.offheap..", "io.paimongov.flink..", "io.paimongov.spark..", "io.paimongov.nativehost..")
                .because("the runtime is engine-neutral: it meets allocators only through the SPI"));
    }

    /**
     * The runtime's internals ({@code io.paimongov.runtime.internal}) are the runtime's own: what an
     * engine integration, the kit, the CLI or a benchmark needs is in the runtime's other packages.
     * {@link SourceRulesTest} checks the same on the sources, tests included.
     */
    @Test
    void onlyTheRuntimeUsesItsInternals() {
        check(noClasses().that().resideOutsideOfPackage(RUNTIME)
                .should().dependOnClassesThat().resideInAPackage(RUNTIME_INTERNAL)
                .because("the runtime's public surface is its other packages; internal ones change without notice"));
    }

    /**
     * The runtime's memory package holds what an engine integration holds, the shared memory's handle
     * ({@code SharedMemory}); the budget, its reservations, the page pool and the arbiter's accounting
     * are under {@code io.paimongov.runtime.internal.memory} (docs/architecture.md, "Memory").
     */
    @Test
    void theMemoryPackageHoldsTheSharedMemoryAlone() {
        List<String> types = classes.stream()
                .filter(c -> c.getPackageName().equals("io.paimongov.runtime.memory") && c.isTopLevelClass())
                .map(JavaClass::getSimpleName)
                .sorted()
                .toList();
        assertThat(types).as("top-level types of io.paimongov.runtime.memory; the runtime's own belong under"
                + " io.paimongov.runtime.internal.memory").containsExactly("SharedMemory");
    }

    @Test
    void connectorsUseTheirOwnAllocatorOnly() {
        check(noClasses().that().resideInAPackage(FLINK_CONNECTOR)
                .should().dependOnClassesThat().resideInAnyPackage(
                        TCK, CLI, BENCHMARKS, SPARK_CONNECTOR, "io.paimongov.offheap..",
                        "io.paimongov.spark..", "io.paimongov.nativehost..")
                .because("connector-flink runs governed writes in Flink on the flink allocator"));
        check(noClasses().that().resideInAPackage(FLINK_CONNECTOR)
                .and().doNotHaveFullyQualifiedName("io.paimongov.connector.flink.read.LookupMemory")
                .should().dependOnClassesThat().resideInAPackage("io.paimongov.heap..")
                .because("only a lookup function, which Flink gives no managed memory, takes a heap budget (LookupMemory)"));
        check(noClasses().that().resideInAPackage(SPARK_CONNECTOR)
                .should().dependOnClassesThat().resideInAnyPackage(
                        TCK, CLI, BENCHMARKS, FLINK_CONNECTOR, "io.paimongov.heap..", "io.paimongov.offheap..",
                        "io.paimongov.flink..", "io.paimongov.nativehost..")
                .because("connector-spark runs governed writes in Spark on the spark allocator"));
    }

    @Test
    void theKitFindsAllocatorsThroughTheSpi() {
        check(noClasses().that().resideInAPackage(TCK)
                .should().dependOnClassesThat().resideInAnyPackage(
                        SUPPORT, CLI, BENCHMARKS, FLINK_CONNECTOR, SPARK_CONNECTOR, "io.paimongov.heap..",
                        "io.paimongov.offheap..", "io.paimongov.flink..", "io.paimongov.spark..", "io.paimongov.nativehost..")
                .because("the TCK proves any allocator against the contract, so it names none and leans on no base class"));
    }

    @Test
    void nothingDependsOnTheTopLayer() {
        check(noClasses().that().resideOutsideOfPackages(CLI, BENCHMARKS)
                .should().dependOnClassesThat().resideInAnyPackage(CLI, BENCHMARKS));
        check(noClasses().that().resideInAPackage(BENCHMARKS)
                .should().dependOnClassesThat().resideInAPackage(CLI));
    }

    @Test
    void packagesAreFreeOfCycles() {
        check(slices().matching("io.paimongov.(**)").should().beFreeOfCycles());
    }

    private static void check(ArchRule rule) {
        rule.check(classes);
    }
}
