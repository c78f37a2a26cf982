package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.connector.spark.SparkLines;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spark.md as a user runs it: the catalog configured exactly as its {@code properties} block
 * says (the warehouse replaced by a temporary directory), then every {@code sql} block, in order,
 * statement by statement; where a {@code text} block follows a {@code sql} block, the rows of the
 * block's last statement, as Spark's {@code show()} prints them, must be that text. A snippet that
 * stops working, or whose output changes, fails the build.
 */
class SparkDocsTest {

    private static final Path PAGE = Path.of(System.getProperty("basedir", "."), "..", "docs", "spark.md");

    @TempDir Path warehouse;

    @AfterEach
    void resetSessionSettings() {
        LocalSpark.session(LocalSpark.LOCAL_2).conf().unset("spark.sql.sources.partitionOverwriteMode");
    }

    @Test
    void everySqlBlockRunsAndShowsWhatThePageSays() throws Exception {
        List<Block> blocks = blocks(Files.readAllLines(PAGE));
        SparkSession spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Map<String, String> conf = catalogConf(blocks);
        assertThat(conf).containsKeys("spark.sql.catalog.g", "spark.sql.catalog.g.warehouse");
        conf.forEach((key, value) -> spark.conf().set(key, key.endsWith(".warehouse") ? warehouse.toUri().toString() : value));

        int sqlBlocks = 0;
        int checked = 0;
        for (int i = 0; i < blocks.size(); i++) {
            Block block = blocks.get(i);
            if (!block.language().equals("sql")) {
                continue;
            }
            sqlBlocks++;
            Dataset<Row> last = null;
            for (String statement : statements(block.text())) {
                last = spark.sql(statement);
            }
            Block next = i + 1 < blocks.size() ? blocks.get(i + 1) : null;
            if (next != null && next.language().equals("text") && next.followsDirectly()) {
                String shown = SparkLines.showString(last, 20, 20);
                assertThat(shown.strip()).as("the rows of the sql block at line %d", block.line()).isEqualTo(next.text().strip());
                checked++;
            }
        }
        assertThat(sqlBlocks).as("sql blocks on the page").isGreaterThanOrEqualTo(7);
        assertThat(checked).as("sql blocks whose rows the page shows").isGreaterThanOrEqualTo(5);
    }

    /** A fenced block: its language, first line number, text, and whether only blank lines precede it since the last block. */
    private record Block(String language, int line, String text, boolean followsDirectly) {}

    private static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        boolean onlyBlanks = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                String language = line.substring(3).strip();
                StringBuilder text = new StringBuilder();
                int start = i + 1;
                for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                    text.append(lines.get(i)).append('\n');
                }
                blocks.add(new Block(language, start, text.toString(), onlyBlanks));
                onlyBlanks = true;
            } else if (!line.isBlank()) {
                onlyBlanks = false;
            }
        }
        return blocks;
    }

    /** The first {@code properties} block: spark-defaults.conf lines, key and value apart by blanks. */
    private static Map<String, String> catalogConf(List<Block> blocks) {
        Map<String, String> conf = new LinkedHashMap<>();
        Block properties = blocks.stream().filter(b -> b.language().equals("properties")).findFirst().orElseThrow();
        for (String line : properties.text().split("\n")) {
            if (!line.isBlank()) {
                String[] keyValue = line.strip().split("\\s+", 2);
                conf.put(keyValue[0], keyValue[1]);
            }
        }
        return conf;
    }

    /** The statements of a block: split where a line ends with ';'. */
    private static List<String> statements(String text) {
        List<String> statements = new ArrayList<>();
        StringBuilder statement = new StringBuilder();
        for (String line : text.split("\n")) {
            statement.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                String sql = statement.toString().strip();
                statements.add(sql.substring(0, sql.length() - 1));
                statement.setLength(0);
            }
        }
        assertThat(statement.toString()).as("text after the last ';'").isBlank();
        return statements;
    }
}
