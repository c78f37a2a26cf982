package io.paimongov.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's key table is printed from the definitions in {@link RuntimeOptions}:
 * the lines between {@link #BEGIN} and {@link #END} must be exactly what {@link #table()} prints,
 * so a changed default, range or meaning fails here until the page is updated (the failure message
 * carries the lines to paste). The page's Errors table is checked against the messages themselves.
 */
class ConfigReferenceTest {

    static final Path DOC = Path.of("..", "docs", "configuration.md");
    static final String BEGIN = "<!-- keys: generated from RuntimeOptions.ALL; ConfigReferenceTest fails when they differ -->";
    static final String END = "<!-- end of keys -->";

    /** The key table, one row per definition in documentation order. */
    static String table() {
        return "| Key | Type | Default | Range | Meaning |\n|---|---|---|---|---|\n"
                + RuntimeOptions.ALL.stream()
                        .map(o -> "| `" + o.key() + "` | " + o.type() + " | " + o.defaultDoc() + " | " + o.range()
                                + " | " + o.meaning() + " |\n")
                        .collect(Collectors.joining());
    }

    /** The text between the markers, without the marker lines. */
    static String generatedPart(String doc) {
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("docs/configuration.md has the line " + BEGIN).isNotNegative();
        assertThat(end).as("docs/configuration.md has the line " + END + " after " + BEGIN).isGreaterThan(begin);
        return doc.substring(begin + BEGIN.length() + 1, end);
    }

    @Test
    void theKeyTableIsTheOnePrintedFromTheDefinitions() throws IOException {
        String printed = table();
        assertThat(generatedPart(Files.readString(DOC)))
                .as("docs/configuration.md's key table differs from RuntimeOptions; put these lines between the"
                        + " markers:%n%s", printed)
                .isEqualTo(printed);
    }

    @Test
    void everyKeyHasItsOwnSection() throws IOException {
        String doc = Files.readString(DOC);
        for (ConfigOption<?> option : RuntimeOptions.ALL) {
            assertThat(doc).as("docs/configuration.md has a section for " + option.key())
                    .contains("\n### `" + option.key() + "`\n");
        }
    }

    /**
     * Every message the Errors table quotes for a value ({@code 'key' = 'value' ...}) and for an
     * unknown key is the one the options give for that value today.
     */
    @Test
    void theQuotedErrorsAreTheOnesTheOptionsGive() throws IOException {
        Pattern valueError = Pattern.compile("^\\| [^|]+ \\| `('([a-z.-]+)' = '([^']*)' [^`]*)`");
        Pattern keyError = Pattern.compile("^\\| [^|]+ \\| `(unknown option '([a-z.-]+)'; [^`]*)`");
        int checked = 0;
        for (String line : Files.readAllLines(DOC)) {
            Matcher value = valueError.matcher(line);
            Matcher key = keyError.matcher(line);
            if (value.find()) {
                assertThat(errorOf(Map.of(value.group(2), value.group(3)))).as(line).isEqualTo(value.group(1));
                checked++;
            } else if (key.find()) {
                assertThat(errorOf(Map.of(key.group(2), "1"))).as(line).isEqualTo(key.group(1));
                checked++;
            }
        }
        assertThat(checked).as("rows of the Errors table checked").isGreaterThanOrEqualTo(RuntimeOptions.ALL.size());
    }

    private static String errorOf(Map<String, String> values) {
        try {
            GovernanceOptions.of(values);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        return "(accepted)";
    }

    @Test
    void theMarkersAreFoundAndAChangedCellIsCaught() {
        String doc = "before\n" + BEGIN + "\n" + table() + END + "\nafter\n";
        assertThat(generatedPart(doc)).isEqualTo(table());
        String drifted = doc.replace(table(), table().replaceFirst("\\| `[^`]+` \\|", "| `changed` |"));
        assertThat(drifted).isNotEqualTo(doc);
        assertThat(generatedPart(drifted)).isNotEqualTo(table());
    }
}
