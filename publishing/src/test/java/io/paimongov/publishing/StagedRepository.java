package io.paimongov.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.w3c.dom.Element;

/**
 * The repository every published module deployed into during this build's verify (the parent's
 * {@code staging.repo}), read the way a resolver reads a remote one: each snapshot's {@code
 * maven-metadata.xml} names the files of its latest deploy. Immutable once read.
 */
final class StagedRepository {

    static final String GROUP = "io.paimongov";

    /** One deployed file: the artifact, its classifier ("" for none), its extension and where it is. */
    record StagedFile(String artifactId, String classifier, String extension, Path path) {

        /** The artifact's identity as a BOM manages it: {@code artifactId} or {@code artifactId:classifier}. */
        String coordinate() {
            return classifier.isEmpty() ? artifactId : artifactId + ":" + classifier;
        }
    }

    private final Path root;
    private final List<StagedFile> files;

    private StagedRepository(Path root, List<StagedFile> files) {
        this.root = root;
        this.files = List.copyOf(files);
    }

    /** The staging repository of this build, whose path surefire passes in {@code staging.repo}. */
    static StagedRepository ofThisBuild() throws Exception {
        Path root = Path.of(System.getProperty("staging.repo"));
        Path group = root.resolve(GROUP.replace('.', '/'));
        assertThat(group)
                .as("the staging repository (the published modules deploy into it at verify: run 'mvn verify' from the root)")
                .isDirectory();
        String version = System.getProperty("project.version");
        List<StagedFile> files = new ArrayList<>();
        try (Stream<Path> artifacts = Files.list(group)) {
            for (Path artifact : artifacts.sorted().toList()) {
                Path versionDir = artifact.resolve(version);
                Element metadata = Poms.read(versionDir.resolve("maven-metadata.xml"));
                Element versioning = Poms.child(metadata, "versioning");
                for (Element v : Poms.children(Poms.child(versioning, "snapshotVersions"), "snapshotVersion")) {
                    String classifier = Poms.text(v, "classifier").orElse("");
                    String extension = Poms.text(v, "extension").orElseThrow();
                    String value = Poms.text(v, "value").orElseThrow();
                    String name = artifact.getFileName() + "-" + value + (classifier.isEmpty() ? "" : "-" + classifier) + "." + extension;
                    files.add(new StagedFile(artifact.getFileName().toString(), classifier, extension, versionDir.resolve(name)));
                }
            }
        }
        return new StagedRepository(root, files);
    }

    Path root() {
        return root;
    }

    List<StagedFile> files() {
        return files;
    }

    /** The jars that are artifacts of their own: every jar but the sources and javadoc attached to one. */
    List<StagedFile> artifactJars() {
        return files.stream()
                .filter(f -> f.extension().equals("jar"))
                .filter(f -> !f.classifier().equals("sources") && !f.classifier().equals("javadoc"))
                .toList();
    }

    /** The file deployed for {@code artifactId} with {@code classifier} and {@code extension}; fails naming it when none was. */
    StagedFile file(String artifactId, String classifier, String extension) {
        return files.stream()
                .filter(f -> f.artifactId().equals(artifactId) && f.classifier().equals(classifier) && f.extension().equals(extension))
                .findFirst()
                .orElseThrow(() -> new AssertionError(artifactId + (classifier.isEmpty() ? "" : "-" + classifier) + "." + extension
                        + " was not deployed into " + root + "; deployed: " + files.stream().map(f -> f.path().getFileName().toString()).toList()));
    }

    static boolean exists(StagedFile file) throws IOException {
        return Files.isRegularFile(file.path()) && Files.size(file.path()) > 0;
    }
}
