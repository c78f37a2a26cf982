package io.paimongov.runtime.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.paimongov.runtime.orphans.OrphanFiles;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TableCheck} on real tables whose files the test damages as a disk or a person would:
 * truncated, overwritten with garbage, deleted. The expected file is the one the test damaged,
 * found by listing the table's directories, never by asking Paimon which file the check read.
 */
class TableCheckTest {

    /** Bytes of the garbage the test writes: none of them may reach a message. */
    private static final String GARBAGE = "{\"garbage\": ,,, secret-bytes-7f3a";

    @TempDir Path tmp;

    private FileStoreTable table;
    private Path dir;

    /** Three commits (three snapshots, each with its own manifests) into a 2-bucket table, and a tag on the first. */
    @BeforeEach
    void threeCommits() throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(tmp.resolve("wh"))))) {
            catalog.createDatabase("db", false);
            Identifier id = Identifier.create("db", "t");
            catalog.createTable(id, Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .primaryKey("k")
                    .option("bucket", "2")
                    .build(), false);
            table = (FileStoreTable) catalog.getTable(id);
        }
        for (int commit = 0; commit < 3; commit++) {
            BatchWriteBuilder builder = table.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit c = builder.newCommit()) {
                for (int k = 0; k < 20; k++) {
                    write.write(GenericRow.of(k + commit * 10, BinaryString.fromString("v" + commit)));
                }
                c.commit(write.prepareCommit());
            }
        }
        table.createTag("first", 1);
        dir = tmp.resolve("wh").resolve("db.db").resolve("t");
    }

    @Test
    void aHealthyTablePasses() {
        assertThatCode(() -> TableCheck.verify(table)).doesNotThrowAnyException();
    }

    @Test
    void aTruncatedManifestIsNamed() throws Exception {
        Path manifest = manifests().get(0);
        try (FileChannel channel = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
            channel.truncate(Files.size(manifest) / 2);
        }

        DamagedTableException e = damageFound();

        assertThat(e.file()).isEqualTo(manifest.toString());
        assertThat(e.damage()).startsWith("table db.t is damaged: its manifest file " + manifest + " (referenced by ")
                .endsWith("cannot be read (EOFException): it is truncated or overwritten");
    }

    @Test
    void aMissingManifestIsNamedAndNotTakenForAnExpiredOne() throws Exception {
        Path manifest = manifests().get(0);
        Files.delete(manifest);

        DamagedTableException e = damageFound();

        assertThat(e.file()).isEqualTo(manifest.toString());
        assertThat(e.damage()).contains("its manifest file " + manifest).endsWith(" is missing");
        assertThat(e.getMessage()).doesNotContain("expire");
    }

    /**
     * Paimon's own clean takes the missing manifest for an expired one and would delete the data
     * files only it lists as orphans; the clean refuses the damaged table and deletes nothing.
     */
    @Test
    void theOrphanCleanRefusesATableWithAMissingManifestAndDeletesNothing() throws Exception {
        List<Path> before = files("data-");
        for (Path p : before) {
            Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        }
        Files.delete(manifests().get(0));

        DamagedTableException e = catchThrowableOfType(
                () -> OrphanFiles.clean(table, Duration.ofSeconds(0), false), DamagedTableException.class);

        assertThat(e).isNotNull();
        assertThat(files("data-")).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void aGarbageLatestSnapshotIsNamedWithoutItsBytes() throws Exception {
        Path snapshot = dir.resolve("snapshot").resolve("snapshot-3");
        Files.writeString(snapshot, GARBAGE);

        DamagedTableException e = damageFound();

        assertThat(e.file()).isEqualTo(snapshot.toString());
        assertThat(e.damage()).startsWith("table db.t is damaged: its snapshot file " + snapshot
                + " cannot be parsed as a snapshot (").endsWith("): it is truncated or overwritten");
        assertThat(e.getMessage()).doesNotContain("secret-bytes").doesNotContain("garbage");
    }

    /** Paimon reads only the latest snapshot, so a commit would go on over this one. */
    @Test
    void aGarbageOlderSnapshotIsNamedToo() throws Exception {
        Path snapshot = dir.resolve("snapshot").resolve("snapshot-1");
        Files.writeString(snapshot, GARBAGE);

        DamagedTableException e = damageFound();

        assertThat(e.file()).isEqualTo(snapshot.toString());
        assertThat(e.getMessage()).doesNotContain("secret-bytes");
    }

    /** A table whose schema does not parse cannot be opened: the check takes its directory. */
    @Test
    void aGarbageSchemaIsNamed() throws Exception {
        Path schema = dir.resolve("schema").resolve("schema-0");
        Files.writeString(schema, GARBAGE);

        DamagedTableException e = catchThrowableOfType(
                () -> TableCheck.verifySchemas(table.fileIO(), PaimonPaths.of(dir), "db.t"), DamagedTableException.class);

        assertThat(e).isNotNull();
        assertThat(e.file()).isEqualTo(schema.toString());
        assertThat(e.damage()).startsWith("table db.t is damaged: its schema file " + schema + " cannot be parsed as a schema (");
        assertThat(e.getMessage()).doesNotContain("secret-bytes");
        assertThat(damageFound().file()).as("part of the metadata").isEqualTo(schema.toString());
    }

    @Test
    void aGarbageTagIsNamed() throws Exception {
        Path tag = dir.resolve("tag").resolve("tag-first");
        Files.writeString(tag, GARBAGE);

        assertThat(damageFound().file()).isEqualTo(tag.toString());
    }

    @Test
    void aDeletedDataFileIsNamedByTheLiveFileCheck() throws Exception {
        Path data = files("data-").get(0);
        Files.delete(data);

        assertThatCode(() -> TableCheck.verifyMetadata(table)).as("the metadata is whole").doesNotThrowAnyException();
        DamagedTableException e = damageFound();

        assertThat(e.file()).isEqualTo(data.toString());
        assertThat(e.damage()).contains("its data file " + data + " (referenced by snapshot-3) is missing");
    }

    @Test
    void aTruncatedDataFileIsNamedWithBothSizes() throws Exception {
        Path data = files("data-").get(0);
        long size = Files.size(data);
        try (FileChannel channel = FileChannel.open(data, StandardOpenOption.WRITE)) {
            channel.truncate(size - 1);
        }

        DamagedTableException e = damageFound();

        assertThat(e.damage()).contains("its data file " + data)
                .endsWith("has " + (size - 1) + " bytes where its manifest records " + size
                        + ": it is truncated or overwritten");
    }

    /**
     * An expiration removes a snapshot file and then its manifests; a check that runs in between
     * sees the manifest list gone with the snapshot: not damage.
     */
    @Test
    void aManifestListGoneWithItsExpiredSnapshotIsNoDamage() throws Exception {
        Path snapshot = dir.resolve("snapshot").resolve("snapshot-2");
        String deltaList = snapshotField(snapshot, "deltaManifestList");
        Files.delete(snapshot);
        Files.delete(dir.resolve("manifest").resolve(deltaList));

        assertThatCode(() -> TableCheck.verify(table)).doesNotThrowAnyException();
    }

    private DamagedTableException damageFound() {
        DamagedTableException e = catchThrowableOfType(() -> TableCheck.verify(table), DamagedTableException.class);
        assertThat(e).as("no damage found").isNotNull();
        assertThat(e.table()).isEqualTo("db.t");
        assertThat(e.getMessage()).isEqualTo(e.damage() + "; " + DamagedTableException.ADVICE);
        return e;
    }

    /** The manifest files (not lists, not index manifests) in the table's manifest directory, sorted. */
    private List<Path> manifests() throws Exception {
        try (Stream<Path> list = Files.list(dir.resolve("manifest"))) {
            return list.filter(p -> p.getFileName().toString().startsWith("manifest-")
                            && !p.getFileName().toString().startsWith("manifest-list-"))
                    .sorted().toList();
        }
    }

    private List<Path> files(String prefix) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().toList();
        }
    }

    /** A string field of a snapshot's JSON, read with a plain pattern, not Paimon's parser. */
    private static String snapshotField(Path snapshot, String field) throws Exception {
        String json = Files.readString(snapshot, StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
        assertThat(m.find()).as(json).isTrue();
        return m.group(1);
    }
}
