package io.paimongov.runtime.tables;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.apache.paimon.Changelog;
import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.IndexManifestFile;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.utils.CloseableIterator;
import org.apache.paimon.utils.FileStorePathFactory;
import org.apache.paimon.utils.ObjectsFile;

/**
 * Finds the first damaged file of a Paimon table (main branch), reading each file itself rather
 * than through Paimon's tolerant readers: Paimon's orphan clean takes a missing manifest for an
 * expired one and reads none of its data files as used, so they would be deleted as orphans; a
 * reader meets a deleted data file with a hint about snapshot expiration; a garbage snapshot file
 * is retried ten times and then reported with its bytes; a garbage older snapshot is never read
 * at all, and a commit goes on over it.
 *
 * <p>{@link #verifyMetadata}: every schema, snapshot, tag and long-lived changelog file parses, and every
 * manifest list, manifest and index manifest they reference exists and reads to its end. That is
 * the set of files Paimon's orphan clean reads to decide what is used. {@link #verifyLiveFiles}:
 * every data file and index file of the latest snapshot exists with the size its manifest
 * records, which is what a read of the table needs.
 *
 * <p>A file that goes missing because a concurrent expiration removed its snapshot is not damage:
 * when a referenced file is missing, the snapshot that references it is looked up again, and the
 * file counts as damaged only while that snapshot is still there. A file that cannot be read for
 * want of permission is an error of the environment, not damage: its {@link IOException} is
 * thrown as it is.
 *
 * <p>Stateless; thread-safe. It reads what Paimon reads for an orphan clean (every manifest of
 * every snapshot), so callers run it where they would read that much anyway.
 */
public final class TableCheck {

    private static final String SNAPSHOT_PREFIX = "snapshot-";
    private static final String TAG_PREFIX = "tag-";
    private static final String CHANGELOG_PREFIX = "changelog-";
    private static final String SCHEMA_PREFIX = "schema-";

    private TableCheck() {}

    /** {@link #verifyMetadata} then {@link #verifyLiveFiles}. */
    public static void verify(FileStoreTable table) throws IOException {
        verifyMetadata(table);
        verifyLiveFiles(table);
    }

    /**
     * Checks the schema, snapshot, tag and changelog files and the manifests they reference.
     *
     * @throws DamagedTableException naming the first damaged file
     * @throws IOException when a file cannot be listed or read for another reason (permission)
     */
    public static void verifyMetadata(FileStoreTable table) throws IOException {
        verifySchemas(table.fileIO(), table.location(), table.fullName());
        Check check = new Check(table);
        List<Source> sources = new ArrayList<>();
        sources.addAll(check.parseAll(table.snapshotManager().snapshotDirectory(), SNAPSHOT_PREFIX, "snapshot",
                Snapshot::fromJson));
        sources.addAll(check.parseAll(table.tagManager().tagDirectory(), TAG_PREFIX, "tag", Tag::fromJson));
        sources.addAll(check.parseAll(table.changelogManager().changelogDirectory(), CHANGELOG_PREFIX, "changelog",
                Changelog::fromJson));
        // The newest first: its damage is the one a reader or a writer meets.
        sources.sort(Comparator.comparingLong((Source s) -> s.snapshot.id()).reversed());
        for (Source source : sources) {
            check.manifests(source);
        }
    }

    /**
     * Checks that every schema file of the table at {@code location} parses: a table whose latest
     * schema does not cannot even be opened, so this takes the table's directory, not the table.
     *
     * @param table the table's full name, for the message
     * @throws DamagedTableException naming the first schema file that does not parse
     * @throws IOException when the directory cannot be listed or a file read (permission)
     */
    public static void verifySchemas(FileIO io, Path location, String table) throws IOException {
        Path dir = new Path(location, "schema");
        if (!io.exists(dir)) {
            return;
        }
        for (FileStatus status : io.listStatus(dir)) {
            String name = status.getPath().getName();
            if (status.isDir() || !name.startsWith(SCHEMA_PREFIX) || !numbered(name.substring(SCHEMA_PREFIX.length()))) {
                continue;
            }
            String json;
            try {
                json = io.readFileUtf8(status.getPath());
            } catch (FileNotFoundException gone) {
                continue;
            }
            try {
                TableSchema.fromJson(json);
            } catch (RuntimeException e) {
                String file = display(status.getPath());
                throw new DamagedTableException(table, file, "table " + table + " is damaged: its schema file " + file
                        + " cannot be parsed as a schema (" + e.getClass().getSimpleName()
                        + "): it is truncated or overwritten", e);
            }
        }
    }

    /**
     * Checks that every data file and index file of the latest snapshot exists with its recorded
     * size. A table without a snapshot passes.
     *
     * @throws DamagedTableException naming the first damaged file (also a damaged snapshot or
     *     manifest met on the way)
     * @throws IOException when a file cannot be read for another reason (permission)
     */
    public static void verifyLiveFiles(FileStoreTable table) throws IOException {
        Check check = new Check(table);
        Long latest = table.snapshotManager().latestSnapshotIdFromFileSystem();
        if (latest == null) {
            return;
        }
        Path file = table.snapshotManager().snapshotPath(latest);
        Source source = check.parse(file, "snapshot", Snapshot::fromJson);
        if (source == null) {
            return;
        }
        List<ManifestEntry> entries;
        try {
            entries = table.store().newScan().withSnapshot(source.snapshot).plan().files();
        } catch (RuntimeException e) {
            // A manifest of the snapshot is damaged: name it (the scan's own error does not).
            check.manifests(source);
            throw e;
        }
        FileStorePathFactory paths = table.store().pathFactory();
        for (ManifestEntry entry : entries) {
            Path data = paths.createDataFilePathFactory(entry.partition(), entry.bucket()).toPath(entry.file());
            check.size(data, entry.file().fileSize(), "data file", source);
        }
        String indexManifest = source.snapshot.indexManifest();
        if (indexManifest != null) {
            IndexFileHandler index = table.store().newIndexFileHandler();
            if (check.readable(table.store().indexManifestFileFactory().create(),
                    paths.indexManifestFileFactory().toPath(indexManifest), null, "index manifest", source)) {
                for (IndexManifestEntry entry : index.readManifestWithIOException(indexManifest)) {
                    check.size(index.filePath(entry), entry.indexFile().fileSize(), "index file", source);
                }
            }
        }
    }

    /** A snapshot-like file that parsed: what it says, and where it lies (to see whether it is still there). */
    private record Source(Snapshot snapshot, Path file) {
        /** Its file's name, which says what it is: {@code snapshot-3}, {@code tag-daily}, {@code changelog-2}. */
        String describe() {
            return file.getName();
        }
    }

    /** Reading one table; remembers the manifests already read, which many snapshots share. */
    private static final class Check {
        private final FileStoreTable table;
        private final FileIO io;
        private final FileStorePathFactory paths;
        private final ManifestList manifestList;
        private final ManifestFile manifestFile;
        private final IndexManifestFile indexManifestFile;
        private final Set<String> seen = new HashSet<>();

        Check(FileStoreTable table) {
            this.table = table;
            this.io = table.fileIO();
            this.paths = table.store().pathFactory();
            this.manifestList = table.store().manifestListFactory().create();
            this.manifestFile = table.store().manifestFileFactory().create();
            this.indexManifestFile = table.store().indexManifestFileFactory().create();
        }

        /** Every file in {@code dir} named {@code prefix<number>}, parsed; those gone meanwhile left out. */
        List<Source> parseAll(Path dir, String prefix, String kind, Function<String, ? extends Snapshot> parser)
                throws IOException {
            List<Source> parsed = new ArrayList<>();
            if (!io.exists(dir)) {
                return parsed;
            }
            for (FileStatus status : io.listStatus(dir)) {
                String name = status.getPath().getName();
                if (status.isDir() || !name.startsWith(prefix) || !isNumbered(name.substring(prefix.length()), kind)) {
                    continue;
                }
                Source source = parse(status.getPath(), kind, parser);
                if (source != null) {
                    parsed.add(source);
                }
            }
            return parsed;
        }

        /** Tags are named by the user ({@code tag-<name>}); snapshots and changelogs by number. */
        private static boolean isNumbered(String suffix, String kind) {
            return kind.equals("tag") || numbered(suffix);
        }

        /** The file parsed; null when it is gone (expired meanwhile). */
        Source parse(Path file, String kind, Function<String, ? extends Snapshot> parser) throws IOException {
            String json;
            try {
                json = io.readFileUtf8(file);
            } catch (FileNotFoundException gone) {
                return null;
            }
            try {
                return new Source(parser.apply(json), file);
            } catch (RuntimeException e) {
                // Paimon writes these files whole (a rename); one that does not parse stays so.
                throw damaged(kind + " file", file, null, "cannot be parsed as a " + kind
                        + " (" + e.getClass().getSimpleName() + "): it is truncated or overwritten", e);
            }
        }

        /** The manifest lists, manifests, index manifest and statistics file {@code source} references. */
        void manifests(Source source) throws IOException {
            Snapshot s = source.snapshot;
            for (String list : new String[] {s.baseManifestList(), s.deltaManifestList(), s.changelogManifestList()}) {
                if (list == null || !seen.add(list)) {
                    continue;
                }
                Path listFile = paths.toManifestListPath(list);
                if (!readable(manifestList, listFile, null, "manifest list", source)) {
                    continue;
                }
                for (ManifestFileMeta meta : manifestList.readWithIOException(list)) {
                    if (seen.add(meta.fileName())) {
                        readable(manifestFile, paths.toManifestFilePath(meta.fileName()), meta.fileSize(),
                                "manifest file", source);
                    }
                }
            }
            String indexManifest = s.indexManifest();
            if (indexManifest != null && seen.add(indexManifest)) {
                readable(indexManifestFile, paths.indexManifestFileFactory().toPath(indexManifest), null,
                        "index manifest", source);
            }
            if (s.statistics() != null && seen.add(s.statistics())) {
                Path stats = paths.statsFileFactory().toPath(s.statistics());
                if (!io.exists(stats) && stillThere(source)) {
                    throw damaged("statistics file", stats, source, "is missing", null);
                }
            }
        }

        /**
         * Reads every row of {@code file} from the file itself (Paimon's readers of these files go
         * through the table's manifest cache, which may hold a copy of a file since damaged).
         * False when it is missing because its snapshot expired meanwhile.
         *
         * @param size the size its manifest records, null when none does
         */
        boolean readable(ObjectsFile<?> reader, Path file, Long size, String kind, Source source) throws IOException {
            try (CloseableIterator<InternalRow> rows = reader.createIterator(file, size)) {
                while (rows.hasNext()) {
                    rows.next();
                }
                return true;
            } catch (FileNotFoundException e) {
                return missing(file, kind, source, e);
            } catch (AccessDeniedException e) {
                throw e;
            } catch (Exception e) {
                if (deniedOrGone(e, file)) {
                    return missing(file, kind, source, e);
                }
                throw damaged(kind, file, source, "cannot be read (" + e.getClass().getSimpleName()
                        + "): it is truncated or overwritten", e);
            }
        }

        /** A file that must have {@code size} bytes. */
        void size(Path file, long size, String kind, Source source) throws IOException {
            long actual;
            try {
                actual = io.getFileSize(file);
            } catch (FileNotFoundException e) {
                missing(file, kind, source, e);
                return;
            }
            if (actual != size) {
                throw damaged(kind, file, source, "has " + actual + " bytes where its manifest records " + size
                        + ": it is truncated or overwritten", null);
            }
        }

        /**
         * A permission error is thrown as it is; a file that is not there (Paimon's readers sometimes
         * wrap the {@link FileNotFoundException}) is reported as missing.
         */
        private boolean deniedOrGone(Exception e, Path file) throws IOException {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof AccessDeniedException denied) {
                    throw denied;
                }
                if (t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("permission denied")) {
                    throw t instanceof IOException io ? io : new IOException(t.getMessage(), e);
                }
            }
            return !io.exists(file);
        }

        /** False when {@code source} is gone too (expired meanwhile); else the damage. */
        private boolean missing(Path file, String kind, Source source, Exception e) throws IOException {
            if (!stillThere(source)) {
                return false;
            }
            throw damaged(kind, file, source, "is missing", e);
        }

        private boolean stillThere(Source source) throws IOException {
            return io.exists(source.file);
        }

        /** {@code "table db.t is damaged: its KIND FILE (referenced by SOURCE) PROBLEM"}, the source when known. */
        private DamagedTableException damaged(String kind, Path file, Source source, String problem, Throwable cause) {
            String name = display(file);
            return new DamagedTableException(table.fullName(), name, "table " + table.fullName() + " is damaged: its "
                    + kind + " " + name + (source == null ? "" : " (referenced by " + source.describe() + ")") + " "
                    + problem, cause);
        }

    }

    private static boolean numbered(String suffix) {
        return !suffix.isEmpty() && suffix.chars().allMatch(Character::isDigit);
    }

    /** A local file as the user knows it ({@code /data/wh/...}); any other as Paimon names it. */
    private static String display(Path file) {
        try {
            return PaimonPaths.local(file).toString();
        } catch (IllegalArgumentException elsewhere) {
            return file.toString();
        }
    }

}
