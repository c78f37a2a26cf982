package io.paimongov.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.publishing.StagedRepository.StagedFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import javax.lang.model.SourceVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What this build published, read from the staging repository every published module deployed
 * into: a module name in every jar's manifest, sources and javadoc beside every module's jar, and
 * a BOM that manages exactly what was published. The expected sets come from the reactor's POMs
 * (which modules publish) and from the deployed files, never from the BOM itself.
 */
class PublishedArtifactsTest {

    private static final Path ROOT = Path.of(System.getProperty("project.root"));
    private static final String BOM = "governance-bom";
    private static final String PARENT = "paimon-governance-parent";

    private static StagedRepository staged;

    @BeforeAll
    static void readStaging() throws Exception {
        staged = StagedRepository.ofThisBuild();
    }

    @Test
    void everyModuleThatDeploysWasPublishedAndNoOtherArtifact() throws Exception {
        Set<String> expected = new TreeSet<>(List.of(PARENT));
        Element parent = Poms.read(ROOT.resolve("pom.xml"));
        for (Element module : Poms.children(Poms.child(parent, "modules"), "module")) {
            Element pom = Poms.read(ROOT.resolve(module.getTextContent().strip()).resolve("pom.xml"));
            if (!Poms.property(pom, "maven.deploy.skip").orElse("false").equals("true")) {
                expected.add(Poms.text(pom, "artifactId").orElseThrow());
            }
        }
        Set<String> deployed = new TreeSet<>();
        staged.files().forEach(f -> deployed.add(f.artifactId()));

        assertThat(deployed).as("artifacts deployed into " + staged.root()).isEqualTo(expected);
    }

    @Test
    void everyJarNamesItsModuleAndTheNamesAreDistinct() throws Exception {
        Map<String, String> jarByModule = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (StagedFile jar : staged.artifactJars()) {
            String name;
            try (JarFile file = new JarFile(jar.path().toFile())) {
                name = file.getManifest() == null ? null : file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
            }
            if (name == null) {
                problems.add(jar.coordinate() + " has no Automatic-Module-Name");
            } else if (!isModuleName(name) || !name.startsWith("io.paimongov.")) {
                problems.add(jar.coordinate() + " names its module '" + name + "', not a Java module name under io.paimongov");
            } else if (jarByModule.putIfAbsent(name, jar.coordinate()) != null) {
                problems.add(jar.coordinate() + " and " + jarByModule.get(name) + " both name module " + name);
            }
        }
        assertThat(staged.artifactJars()).as("jars deployed").isNotEmpty();
        assertThat(problems).isEmpty();
    }

    @Test
    void everyModulesJarHasItsSourcesAndJavadoc() throws Exception {
        List<String> problems = new ArrayList<>();
        for (StagedFile jar : staged.artifactJars()) {
            if (!jar.classifier().isEmpty()) {
                continue; // an attached jar (the runtime's JMH benchmarks) documents nothing of its own
            }
            StagedFile sources = staged.file(jar.artifactId(), "sources", "jar");
            StagedFile javadoc = staged.file(jar.artifactId(), "javadoc", "jar");
            if (!entries(sources).stream().anyMatch(e -> e.endsWith(".java"))) {
                problems.add(jar.artifactId() + "'s sources jar holds no .java file");
            }
            if (!entries(javadoc).contains("index.html")) {
                problems.add(jar.artifactId() + "'s javadoc jar has no index.html");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theBomManagesExactlyThePublishedJarsAtTheProjectsVersion() throws Exception {
        Element bom = Poms.read(staged.file(BOM, "", "pom").path());
        String version = System.getProperty("project.version");
        assertThat(Poms.text(bom, "version")).as("the staged BOM's version").hasValue(version);
        Set<String> managed = new TreeSet<>();
        Element dependencies = Poms.child(Poms.child(bom, "dependencyManagement"), "dependencies");
        for (Element dependency : Poms.children(dependencies, "dependency")) {
            assertThat(Poms.text(dependency, "groupId")).hasValue(StagedRepository.GROUP);
            // a consumer reads ${project.version} as the BOM's own version, checked above
            assertThat(Poms.text(dependency, "version").map(v -> v.replace("${project.version}", version)))
                    .as("version of " + Poms.text(dependency, "artifactId")).hasValue(version);
            String classifier = Poms.text(dependency, "classifier").orElse("");
            managed.add(Poms.text(dependency, "artifactId").orElseThrow() + (classifier.isEmpty() ? "" : ":" + classifier));
        }
        Set<String> published = new TreeSet<>();
        staged.artifactJars().forEach(j -> published.add(j.coordinate()));

        assertThat(managed).as("what the staged BOM manages").isEqualTo(published);
    }

    /**
     * The BOM has no parent, so that an import brings in none of the parent's third-party pins, and
     * therefore states group and version itself: they must be the project's.
     */
    @Test
    void theBomHasNoParentAndTheProjectsCoordinates() throws Exception {
        Element bom = Poms.read(ROOT.resolve(BOM).resolve("pom.xml"));
        Element parent = Poms.read(ROOT.resolve("pom.xml"));

        assertThat(Poms.children(bom, "parent")).as("the BOM's parent").isEmpty();
        assertThat(Poms.text(bom, "groupId")).isEqualTo(Poms.text(parent, "groupId"));
        assertThat(Poms.text(bom, "version")).as("governance-bom's version").isEqualTo(Poms.text(parent, "version"));
    }

    private static final Pattern DOT = Pattern.compile("\\.");

    private static boolean isModuleName(String name) {
        for (String part : DOT.split(name, -1)) {
            if (!SourceVersion.isIdentifier(part) || SourceVersion.isKeyword(part)) {
                return false;
            }
        }
        return true;
    }

    private static Set<String> entries(StagedFile jar) throws Exception {
        try (JarFile file = new JarFile(jar.path().toFile())) {
            return Collections.unmodifiableSet(new TreeSet<>(file.stream().map(e -> e.getName()).toList()));
        }
    }
}
