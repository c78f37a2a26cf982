package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM has no parent (so an import brings in none of the parent's third-party pins) and
 * therefore states its version itself: this keeps it in step with the project and its list true to
 * the modules. It lives here because the CLI is the one module built after every other.
 */
class BomTest {

    private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..").normalize();

    @Test
    void bomHasNoParentAndTheProjectsVersion() throws Exception {
        Element bom = pom(ROOT.resolve("governance-bom/pom.xml"));
        Element parent = pom(ROOT.resolve("pom.xml"));

        assertThat(children(bom, "parent")).as("the BOM's parent").isEmpty();
        assertThat(text(bom, "groupId")).isEqualTo(text(parent, "groupId"));
        assertThat(text(bom, "version")).as("governance-bom's version").isEqualTo(text(parent, "version"));
    }

    @Test
    void bomManagesTheVendorArtifactsAtItsOwnVersion() throws Exception {
        Element bom = pom(ROOT.resolve("governance-bom/pom.xml"));
        List<String> modules = children(children(pom(ROOT.resolve("pom.xml")), "modules").get(0), "module")
                .stream().map(Node::getTextContent).toList();

        List<String> managed = new ArrayList<>();
        Element dependencies = children(children(bom, "dependencyManagement").get(0), "dependencies").get(0);
        for (Element dependency : children(dependencies, "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("io.paimongov");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }
        // test-fixtures is not managed: it is the project's own test support, not an artifact a product ships.
        assertThat(managed).containsExactlyInAnyOrder(
                "governance-spi", "allocator-support", "governance-runtime", "allocator-heap", "allocator-offheap", "allocator-flink",
                "allocator-spark", "connector-flink", "connector-spark", "tck", "governance-cli");
        assertThat(modules).as("the parent's modules").containsAll(managed).contains("governance-bom");
    }

    private static Element pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
    }

    private static String text(Element element, String child) {
        return children(element, child).get(0).getTextContent().strip();
    }

    /** The direct children named {@code name}: a POM nests the same names at several levels. */
    private static List<Element> children(Element element, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }
}
