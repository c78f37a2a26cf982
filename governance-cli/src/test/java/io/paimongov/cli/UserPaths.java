package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Directory names a user may give, one per kind of character that a URI escapes or a path parser
 * takes apart, and the check that a command used the directory named: nothing landed in a sibling
 * whose name is an escaped form of it (a table written to {@code my%20wh} for {@code my wh}).
 */
final class UserPaths {

    static final String SPACE = "with space";
    static final String PERCENT = "percent%20escaped%41";
    static final String HASH = "hash#fragment";
    static final String NON_ASCII = "ärger-倉庫";

    private UserPaths() {}

    /**
     * Whether this JVM can name non-ASCII files: its file names are UTF-8 ({@code sun.jnu.encoding},
     * from the locale). Under the POSIX locale the JDK cannot, whatever the command does.
     */
    static boolean utf8FileNames() {
        return "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding"));
    }

    /** One name per kind; the non-ASCII one where this JVM can name it. */
    static Stream<String> kinds() {
        List<String> kinds = new ArrayList<>(List.of(SPACE, PERCENT, HASH));
        if (utf8FileNames()) {
            kinds.add(NON_ASCII);
        }
        return kinds.stream();
    }

    /** Every kind in one name, and a quote, which a SQL string literal must double. */
    static String everyKind() {
        return "every kind %20 #" + (utf8FileNames() ? "ä" : "") + "'q";
    }

    /** Asserts that {@code dir} is the only entry of its parent. */
    static void onlyEntryOfItsParent(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir.getParent())) {
            assertThat(entries.toList()).as("the entries beside " + dir).containsExactly(dir);
        }
    }
}
