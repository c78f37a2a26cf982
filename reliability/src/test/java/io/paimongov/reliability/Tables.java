package io.paimongov.reliability;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;

/**
 * The one table and model helper of the matrix: real primary-key tables under a {@code faulty://}
 * warehouse on the local disk, workloads with their effect on a reference model, reading a table
 * back, and what is on disk (files no snapshot references, the state of the snapshot directory).
 *
 * <p>Stateless; thread-safe.
 */
final class Tables {

    static final int PARTITIONS = 2;
    static final int BUCKETS = 2;
    static final int VALUE_BYTES = 200;

    private static final Pattern SNAPSHOT_FILE = Pattern.compile("snapshot-(\\d+)");

    private Tables() {}

    /**
     * A primary-key table (p INT, k INT, v STRING), partitioned by p, {@value #BUCKETS} buckets,
     * Parquet. Paimon retries a failed commit twice, quickly: enough to exercise its retry, short
     * enough that a commit that keeps failing fails in milliseconds.
     */
    static FileStoreTable create(Path warehouse, String name) throws Exception {
        Map<String, String> options = Map.of(
                "bucket", Integer.toString(BUCKETS),
                "file.format", "parquet",
                "commit.max-retries", "2",
                "commit.min-retry-wait", "1 ms",
                "commit.max-retry-wait", "10 ms");
        TestTables.createTable(FaultyFileIO.uri(warehouse), name, options, true);
        return open(warehouse, name);
    }

    /** The table as a fresh reader or writer (another process, a retry) finds it. */
    static FileStoreTable open(Path warehouse, String name) throws Exception {
        return TestTables.open(FaultyFileIO.uri(warehouse), name);
    }

    /** The table's directory on the local disk. */
    static Path directory(FileStoreTable table) {
        return Path.of(table.location().toUri().getPath());
    }

    /** Rows with repeated keys and deletes; {@link #applyTo} gives the content they leave. */
    record Workload(long seed, List<InternalRow> rows) {

        static Workload random(long seed, int rows) {
            Random random = new Random(seed);
            int keys = Math.max(1, rows / 2);
            List<InternalRow> out = new ArrayList<>(rows);
            for (int i = 0; i < rows; i++) {
                int p = random.nextInt(PARTITIONS);
                int k = random.nextInt(keys);
                if (random.nextInt(10) == 0) {
                    out.add(GenericRow.ofKind(RowKind.DELETE, p, k, null));
                } else {
                    out.add(GenericRow.of(p, k, BinaryString.fromString(value(random, seed, i))));
                }
            }
            return new Workload(seed, List.copyOf(out));
        }

        private static String value(Random random, long seed, int i) {
            return TestTables.value(random, seed + "/" + i, VALUE_BYTES);
        }

        /** The content after these rows are written over {@code before}. */
        Map<List<Integer>, String> applyTo(Map<List<Integer>, String> before) {
            Map<List<Integer>, String> after = TestTables.emptyModel();
            after.putAll(before);
            rows.forEach(row -> TestTables.apply(after, row));
            return after;
        }
    }

    /** How two contents differ, in a few words; empty when equal. */
    static String difference(Map<List<Integer>, String> expected, Map<List<Integer>, String> actual) {
        if (expected.equals(actual)) {
            return "";
        }
        Set<List<Integer>> missing = new TreeSet<>(TestTables.KEY_ORDER);
        missing.addAll(expected.keySet());
        missing.removeAll(actual.keySet());
        Set<List<Integer>> extra = new TreeSet<>(TestTables.KEY_ORDER);
        extra.addAll(actual.keySet());
        extra.removeAll(expected.keySet());
        long changed =
                expected.entrySet().stream()
                        .filter(e -> actual.containsKey(e.getKey()) && !java.util.Objects.equals(actual.get(e.getKey()), e.getValue()))
                        .count();
        return missing.size() + " keys missing, " + extra.size() + " extra, " + changed + " with another value";
    }

    /** Every regular file under the table's directory, relative to it ({@link TableFiles#files}). */
    static Set<String> files(FileStoreTable table) {
        return TableFiles.files(table);
    }

    /** Files that appeared since {@code before} and that no snapshot references. */
    static List<String> orphans(FileStoreTable table, Set<String> before) throws IOException {
        Set<String> referenced = TableFiles.referenced(table);
        List<String> orphans = new ArrayList<>();
        for (String file : files(table)) {
            if (!before.contains(file) && !referenced.contains(Path.of(file).getFileName().toString())) {
                orphans.add(file);
            }
        }
        return orphans;
    }

    /**
     * What is wrong with the snapshot directory; empty when it holds exactly {@code expected}
     * complete snapshots numbered 1.., each readable, Paimon finds the last one as the latest, and
     * nothing else is there (no temporary or half-written file). A LATEST hint one behind is no
     * problem: Paimon treats it as a hint and looks further.
     */
    static List<String> snapshotProblems(FileStoreTable table, int expected) {
        List<String> problems = new ArrayList<>();
        Path dir = directory(table).resolve("snapshot");
        TreeSet<Long> ids = new TreeSet<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> list = Files.list(dir)) {
                for (Path p : (Iterable<Path>) list::iterator) {
                    String name = p.getFileName().toString();
                    Matcher m = SNAPSHOT_FILE.matcher(name);
                    if (m.matches()) {
                        ids.add(Long.parseLong(m.group(1)));
                    } else if (!name.equals("LATEST") && !name.equals("EARLIEST")) {
                        problems.add("unexpected file in snapshot/: " + name);
                    }
                }
            } catch (IOException e) {
                problems.add("cannot list snapshot/: " + e);
            }
        }
        if (ids.size() != expected) {
            problems.add(ids.size() + " snapshots, expected " + expected);
        }
        long n = 1;
        for (long id : ids) {
            if (id != n++) {
                problems.add("snapshot ids are not 1.." + ids.size() + ": " + ids);
                break;
            }
            try {
                table.snapshotManager().tryGetSnapshot(id);
            } catch (IOException | RuntimeException e) {
                problems.add("snapshot " + id + " cannot be read: " + e);
            }
        }
        Long latest = table.snapshotManager().latestSnapshotId();
        long last = ids.isEmpty() ? 0 : ids.last();
        if ((latest == null ? 0 : latest) != last) {
            problems.add("Paimon's latest snapshot is " + latest + ", the last file is snapshot-" + last);
        }
        return problems;
    }
}
