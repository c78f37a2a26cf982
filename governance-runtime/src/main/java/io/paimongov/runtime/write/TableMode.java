package io.paimongov.runtime.write;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;

/**
 * How a table is written, as far as the governed write cares: which bucket mode, and which of the
 * heap structures Paimon keeps beside the write buffer it will have. The governed write reads it
 * once when it opens and, from it,
 *
 * <ul>
 *   <li>refuses what it cannot govern ({@link UnsupportedTableModeException}): a bucket mode it
 *       does not know;
 *   <li>sets the table options that bound the mode's heap: the lookup cache ({@code
 *       lookup.cache-max-memory-size}, Paimon's default 256 MB) from the budget, and a write buffer for
 *       Parquet and ORC append tables ({@code write-buffer-for-append}) so that an append writer
 *       keeps its rows in the pool's pages instead of an open file of its own (without it every
 *       open append writer holds a whole row group on the heap, and no budget holds 32 of them).
 *       Avro append tables are written unbuffered, as plain Paimon writes up to 10 writers: an open
 *       Avro writer keeps one block of fixed size, charged from measurement, and buffering its rows
 *       would only add a second pass ({@code write-max-writers-to-spill} is raised so that Paimon
 *       does not buffer them behind the admission's back);
 *   <li>charges what Paimon keeps outside pages for the mode: the lookup cache as a fixed
 *       reservation, an open postpone-bucket file per writer, the dynamic-bucket hash index per key
 *       ({@link DynamicBuckets}), the cross-partition key index per assigner ({@link
 *       CrossPartitionIndex}).
 * </ul>
 *
 * <p>Immutable; thread-safe.
 */
public final class TableMode {

    /** The bucket modes a governed write runs. */
    public enum Kind {
        /** Primary key, {@code bucket} &gt; 0. */
        PRIMARY_KEY_FIXED,
        /** Primary key, {@code bucket = -1} (Paimon's default): the write assigns buckets itself. */
        PRIMARY_KEY_DYNAMIC,
        /**
         * Primary key without every partition field, {@code bucket = -1}: a key may move between
         * partitions; the write keeps a global key index ({@link CrossPartitionIndex}).
         */
        PRIMARY_KEY_CROSS_PARTITION,
        /** Primary key, {@code bucket = -2}: files go to the postpone bucket until a rescale. */
        PRIMARY_KEY_POSTPONE,
        /** No primary key, {@code bucket = -1}. */
        APPEND,
        /** No primary key, {@code bucket} &gt; 0 ({@code bucket-key} set). */
        APPEND_BUCKETED
    }

    /** The smallest lookup cache the write sets: a few of Paimon's 64 KiB cache pages. */
    static final long MIN_LOOKUP_CACHE = 256 << 10;
    /** Paimon's own default, the largest the write sets. */
    static final long MAX_LOOKUP_CACHE = 256 << 20;

    private final String table;
    private final Kind kind;
    private final boolean deletionVectors;
    private final boolean lookup;
    private final String changelogProducer;
    private final String format;

    private TableMode(String table, Kind kind, boolean deletionVectors, boolean lookup, String changelogProducer, String format) {
        this.table = table;
        this.kind = kind;
        this.deletionVectors = deletionVectors;
        this.lookup = lookup;
        this.changelogProducer = changelogProducer;
        this.format = format;
    }

    /**
     * The mode of {@code table}.
     *
     * @throws UnsupportedTableModeException for a mode the governed write cannot run, naming the
     *     table and why
     */
    public static TableMode of(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        boolean primaryKey = !table.primaryKeys().isEmpty();
        BucketMode bucketMode = table.bucketMode();
        String name = table.fullName();
        String producer = options.changelogProducer().toString();
        Kind kind = switch (bucketMode) {
            case HASH_FIXED -> primaryKey ? Kind.PRIMARY_KEY_FIXED : Kind.APPEND_BUCKETED;
            case HASH_DYNAMIC -> Kind.PRIMARY_KEY_DYNAMIC;
            case KEY_DYNAMIC -> Kind.PRIMARY_KEY_CROSS_PARTITION;
            case POSTPONE_MODE -> Kind.PRIMARY_KEY_POSTPONE;
            case BUCKET_UNAWARE -> Kind.APPEND;
            default -> throw new UnsupportedTableModeException(name, "bucket mode " + bucketMode,
                    "the governed write knows no such bucket mode");
        };
        boolean lookup = primaryKey && kind != Kind.PRIMARY_KEY_POSTPONE && options.needLookup();
        return new TableMode(name, kind, primaryKey && options.deletionVectorsEnabled(), lookup, producer,
                options.fileFormatString().toLowerCase(Locale.ROOT));
    }

    public Kind kind() {
        return kind;
    }

    /** Whether the table has deletion vectors ({@code deletion-vectors.enabled}). */
    public boolean deletionVectors() {
        return deletionVectors;
    }

    /**
     * Whether Paimon's compaction looks keys up in the levels (lookup changelog producer, deletion
     * vectors, first-row merge engine or {@code force-lookup}): it then keeps a lookup cache and
     * local lookup files.
     */
    public boolean lookup() {
        return lookup;
    }

    /** The table, its kind and its features, for messages and reports. */
    public String describe() {
        StringBuilder sb = new StringBuilder(kind.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        if (deletionVectors) {
            sb.append(", deletion vectors");
        }
        if (!"none".equals(changelogProducer)) {
            sb.append(", changelog-producer ").append(changelogProducer);
        }
        if (lookup) {
            sb.append(", lookup");
        }
        return table + " (" + sb + ")";
    }

    /** Table options this mode needs set, for the keys the user did not set ({@code given}). */
    Map<String, String> options(Map<String, String> given, long budgetBytes) {
        Map<String, String> set = new HashMap<>();
        if (lookup && !given.containsKey(CoreOptions.LOOKUP_CACHE_MAX_MEMORY_SIZE.key())) {
            set.put(CoreOptions.LOOKUP_CACHE_MAX_MEMORY_SIZE.key(), Long.toString(lookupCacheFor(budgetBytes)));
        }
        if (lookup && !given.containsKey(CoreOptions.LOOKUP_CACHE_BLOOM_FILTER_ENABLED.key())) {
            // A lookup file's bloom filter is one cache page of about 0.78 bytes per row of the file
            // (1 MB for 1.3 million rows), larger than a bucket's share of a cache cut from the
            // budget: handed out uncached, it is read again at every lookup after another page.
            set.put(CoreOptions.LOOKUP_CACHE_BLOOM_FILTER_ENABLED.key(), "false");
        }
        if (lookup && !given.containsKey(CoreOptions.LOOKUP_CACHE_SPILL_COMPRESSION.key())) {
            // Paimon's zstd block codec reads each lookup block through zstd-jni's finalizing
            // stream, which keeps the block's compressed bytes on the heap until the finalizer
            // thread runs (hundreds of streams at once in bench lag); lz4's codec keeps nothing.
            set.put(CoreOptions.LOOKUP_CACHE_SPILL_COMPRESSION.key(), "lz4");
        }
        if ((kind == Kind.APPEND || kind == Kind.APPEND_BUCKETED)
                && !given.containsKey(CoreOptions.WRITE_BUFFER_FOR_APPEND.key())) {
            boolean buffered = WriteFootprint.fillsWithRows(format);
            set.put(CoreOptions.WRITE_BUFFER_FOR_APPEND.key(), Boolean.toString(buffered));
            if (!buffered && !given.containsKey(CoreOptions.WRITE_MAX_WRITERS_TO_SPILL.key())) {
                // Past this many writers Paimon turns every append writer into a buffered one behind
                // the admission's back; the admission caps the open writers itself.
                set.put(CoreOptions.WRITE_MAX_WRITERS_TO_SPILL.key(), Integer.toString(Integer.MAX_VALUE));
            }
        }
        return set;
    }

    /** The lookup cache the write sets under {@code budgetBytes}: a sixteenth, from 256 KiB to 256 MiB. */
    static long lookupCacheFor(long budgetBytes) {
        return Math.max(MIN_LOOKUP_CACHE, Math.min(MAX_LOOKUP_CACHE, budgetBytes / 16));
    }

    /**
     * The lookup cache Paimon will fill (one per write, shared by its writers), from the options the
     * table is written with: reserved once when the write opens; 0 without lookup.
     */
    long lookupCacheBytes(CoreOptions effective) {
        return lookup ? effective.lookupCacheMaxMemory().getBytes() : 0;
    }

    /**
     * Bytes a writer of this mode keeps outside pages on top of the footprint's per-writer bytes: a
     * postpone-bucket writer writes its rows straight to an open Avro file (Paimon forces Avro for the
     * postpone bucket), which costs what an open Avro append writer costs, as measured.
     */
    long extraPerWriterBytes(int pageSize) {
        if (kind == Kind.PRIMARY_KEY_POSTPONE) {
            return MeasuredFootprints.get().bytes("append", "avro", "open", pageSize);
        }
        return 0;
    }

    @Override
    public String toString() {
        return describe();
    }
}
