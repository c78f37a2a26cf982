package io.paimongov.runtime.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table written through a catalog on {@link PaimonPaths} lands in the directory named, whatever
 * characters the name holds: the expected place is the directory itself (listed with {@code
 * java.nio}), never a Paimon path read back.
 */
class PaimonPathsTest {

    @TempDir Path tmp;

    /** One name per kind of character a URI escapes or a parser may take apart. */
    @ParameterizedTest
    @ValueSource(strings = {"my warehouse", "wh%20escaped%41", "wh#fragment", "wh?query", "wärehouse-倉庫", "wh:colon"})
    void aTableWrittenThroughTheCatalogLandsInTheDirectoryNamed(String name) throws Exception {
        Path warehouse = tmp.resolve(name);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            writeOneRow(catalog);
        }
        assertThat(Files.isRegularFile(warehouse.resolve("db.db/t/snapshot/snapshot-1"))).isTrue();
        assertThat(children(tmp)).containsExactly(warehouse);
    }

    /** The string an engine's catalog option takes: Paimon's own parsing of it finds the same directory. */
    @ParameterizedTest
    @ValueSource(strings = {"my warehouse", "wh%20escaped", "wh#fragment", "wärehouse-倉庫"})
    void theOptionStringIsParsedBackToTheSameDirectory(String name) throws Exception {
        Path warehouse = tmp.resolve(name);
        Options options = Options.fromMap(Map.of("warehouse", PaimonPaths.option(warehouse)));
        FileStoreTable table;
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            table = writeOneRow(catalog);
        }
        assertThat(children(tmp)).containsExactly(warehouse);
        assertThat(PaimonPaths.local(table.location())).isEqualTo(warehouse.resolve("db.db").resolve("t"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"relative dir", "a/../b c"})
    void aRelativePathIsMadeAbsoluteAndNormalized(String name) {
        Path expected = Path.of(name).toAbsolutePath().normalize();
        assertThat(PaimonPaths.local(PaimonPaths.of(Path.of(name)))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"s3://bucket/wh", "hdfs://nn:8020/wh"})
    void aPathOnAnotherFileSystemHasNoLocalPath(String uri) {
        assertThatThrownBy(() -> PaimonPaths.local(new org.apache.paimon.fs.Path(uri)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(uri)
                .hasMessageContaining("not on the local file system");
    }

    private static FileStoreTable writeOneRow(Catalog catalog) throws Exception {
        catalog.createDatabase("db", true);
        Identifier id = Identifier.create("db", "t");
        catalog.createTable(id, Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("k")
                .option("bucket", "1")
                .build(), false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            write.write(GenericRow.of(1, BinaryString.fromString("one")));
            commit.commit(write.prepareCommit());
        }
        return table;
    }

    private static List<Path> children(Path dir) throws Exception {
        try (Stream<Path> list = Files.list(dir)) {
            return list.toList();
        }
    }
}
