package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.cli.MarkdownDocs.Doc;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md and docs/**.md names a file that exists, and every {@code #anchor}
 * into a Markdown file names one of its headings as GitHub anchors them (or an HTML anchor).
 * External links ({@code https:}, {@code mailto:}) are not followed: the build runs offline.
 */
class DocLinksTest {

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<Doc> docs = MarkdownDocs.all();
        Map<Path, Set<String>> anchors = new HashMap<>();
        docs.forEach(d -> anchors.put(d.path(), d.anchors()));
        List<String> broken = new ArrayList<>();
        for (Doc doc : docs) {
            for (int i = 0; i < doc.lines().size(); i++) {
                for (String target : MarkdownDocs.links(doc.lines().get(i))) {
                    String problem = problem(doc, target, anchors);
                    if (problem != null) {
                        broken.add(doc.name() + ":" + (i + 1) + ": (" + target + ") " + problem);
                    }
                }
            }
        }
        assertThat(broken).as("links that do not resolve").isEmpty();
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertThat(MarkdownDocs.anchor("### `ResourceContext.close()`".substring(4))).isEqualTo("resourcecontextclose");
        assertThat(MarkdownDocs.anchor("The demo on an engine (`--provider flink` and `spark`)"))
                .isEqualTo("the-demo-on-an-engine---provider-flink-and-spark");
        assertThat(MarkdownDocs.anchor("P6: cancel latency")).isEqualTo("p6-cancel-latency");
        assertThat(MarkdownDocs.anchor("How selection works ([Providers](x.md))")).isEqualTo("how-selection-works-providers");
    }

    private static String problem(Doc doc, String target, Map<Path, Set<String>> anchors) {
        if (target.isEmpty()) {
            return "empty link";
        }
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc.path()
                : doc.path().getParent().resolve(URLDecoder.decode(file, StandardCharsets.UTF_8)).normalize();
        if (!Files.exists(resolved)) {
            return "no such file " + MarkdownDocs.ROOT.relativize(resolved);
        }
        if (fragment == null || !resolved.toString().endsWith(".md")) {
            return null;
        }
        Set<String> known = anchors.computeIfAbsent(resolved, p -> MarkdownDocs.read(p).anchors());
        return known.contains(fragment) ? null : "no heading with anchor #" + fragment + " in " + MarkdownDocs.ROOT.relativize(resolved);
    }
}
