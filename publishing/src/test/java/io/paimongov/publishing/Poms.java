package io.paimongov.publishing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Reading POMs and Maven metadata as plain XML: a POM nests the same names at several levels. Stateless. */
final class Poms {

    private Poms() {}

    static Element read(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
    }

    /** The direct children named {@code name}. */
    static List<Element> children(Element element, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    /** The one direct child named {@code name}; fails naming it when there is none. */
    static Element child(Element element, String name) {
        List<Element> found = children(element, name);
        if (found.isEmpty()) {
            throw new AssertionError("<" + element.getTagName() + "> has no <" + name + ">");
        }
        return found.get(0);
    }

    /** The text of the direct child named {@code name}, if there is one. */
    static Optional<String> text(Element element, String name) {
        List<Element> found = children(element, name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0).getTextContent().strip());
    }

    /** A property the POM sets itself ({@code <properties><name>}), if it does. */
    static Optional<String> property(Element pom, String name) {
        return children(pom, "properties").stream().flatMap(p -> text(p, name).stream()).findFirst();
    }
}
