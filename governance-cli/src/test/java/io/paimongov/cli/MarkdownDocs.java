package io.paimongov.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's Markdown documentation as the doc checks read it: README.md and every {@code .md}
 * under docs/, each as its lines outside fenced code blocks, its headings with the anchors GitHub
 * gives them, its sections and its tables. Test support; not thread-safe, not needed to be.
 */
final class MarkdownDocs {

    static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..").toAbsolutePath().normalize();

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern INLINE_LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)]*)\\)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    /** One file: its path, its lines with those inside fenced code blanked (numbers stay true). */
    record Doc(Path path, List<String> lines, List<String> raw) {

        String name() {
            return ROOT.relativize(path).toString();
        }

        /** The anchors of its headings (GitHub's rules, duplicates numbered) and of its HTML anchors. */
        Set<String> anchors() {
            Set<String> anchors = new LinkedHashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            for (String line : lines) {
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String base = anchor(h.group(2));
                    int n = seen.merge(base, 1, Integer::sum) - 1;
                    anchors.add(n == 0 ? base : base + "-" + n);
                }
                Matcher a = HTML_ANCHOR.matcher(line);
                while (a.find()) {
                    anchors.add(a.group(1));
                }
            }
            return anchors;
        }

        /** The 0-based line of the heading {@code text} (exact, after the #s), or -1. */
        int heading(String text) {
            for (int i = 0; i < lines.size(); i++) {
                Matcher h = HEADING.matcher(lines.get(i));
                if (h.matches() && h.group(2).equals(text)) {
                    return i;
                }
            }
            return -1;
        }

        /** The level of the heading at {@code line}, or 0 when it is none. */
        int level(int line) {
            Matcher h = HEADING.matcher(lines.get(line));
            return h.matches() ? h.group(1).length() : 0;
        }

        String headingText(int line) {
            Matcher h = HEADING.matcher(lines.get(line));
            return h.matches() ? h.group(2) : null;
        }
    }

    /** A table: its header cells and its rows' cells, unescaped {@code \|} kept as {@code |}. */
    record Table(List<String> header, List<List<String>> rows) {}

    private MarkdownDocs() {}

    /** README.md and docs/**.md. */
    static List<Doc> all() {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> walk = Files.walk(ROOT.resolve("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files.stream().map(MarkdownDocs::read).toList();
    }

    /** The reference docs: all but the dated run logs under docs/log/, which keep what was true then. */
    static List<Doc> reference() {
        Path log = ROOT.resolve("docs").resolve("log");
        return all().stream().filter(d -> !d.path().startsWith(log)).toList();
    }

    static Doc read(Path file) {
        try {
            List<String> raw = Files.readAllLines(file);
            List<String> lines = new ArrayList<>(raw.size());
            boolean code = false;
            for (String line : raw) {
                if (FENCE.matcher(line).find()) {
                    code = !code;
                    lines.add("");
                } else {
                    lines.add(code ? "" : line);
                }
            }
            return new Doc(file, List.copyOf(lines), List.copyOf(raw));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * GitHub's anchor of a heading: the text as rendered (links and inline code by their text),
     * lower-cased, every character that is not a letter, digit, space, hyphen or underscore dropped,
     * each space a hyphen.
     */
    static String anchor(String heading) {
        String text = INLINE_LINK.matcher(heading).replaceAll("$1");
        text = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "");
        return text.replace(' ', '-');
    }

    /** Line text without inline code spans, where a link or a number is only an example. */
    static String prose(String line) {
        return line.replaceAll("`[^`]*`", "``");
    }

    /** The targets of the inline links and images of a line, outside inline code. */
    static List<String> links(String line) {
        List<String> targets = new ArrayList<>();
        Matcher m = INLINE_LINK.matcher(line.replaceAll("`[^`]*`", ""));
        while (m.find()) {
            String target = m.group(2).strip();
            int space = target.indexOf(' ');
            targets.add(space < 0 ? target : target.substring(0, space));
        }
        return targets;
    }

    /** The tables among {@code lines}: a row of cells, a separator row of dashes, then rows. */
    static List<Table> tables(List<String> lines) {
        List<Table> tables = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).startsWith("|") && lines.get(i + 1).matches("^\\|\\s*:?-{3,}.*")) {
                List<String> header = cells(lines.get(i));
                List<List<String>> rows = new ArrayList<>();
                int j = i + 2;
                for (; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                    rows.add(cells(lines.get(j)));
                }
                tables.add(new Table(header, rows));
                i = j;
            }
        }
        return tables;
    }

    private static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") && !inner.endsWith("\\|") ? inner.length() - 1 : inner.length());
        List<String> cells = new ArrayList<>();
        for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
            cells.add(cell.strip().replace("\\|", "|"));
        }
        return cells;
    }
}
