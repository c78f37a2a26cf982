package io.paimongov.runtime.config;

import io.paimongov.spi.ProviderOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The validated configuration of one write. Built from string keys and values ({@link #of}), so
 * the same keys work in engine configs, table options and the CLI. Every key, its default and its
 * range is listed in {@link #KEYS} and in {@code docs/configuration.md}.
 *
 * <p>Keys under {@code governance.memory.}, {@code governance.spill.}, {@code
 * governance.compaction.} and {@code governance.provider} belong to the runtime and are validated here: an unknown key or a bad value
 * gets an {@link IllegalArgumentException} that names the key, the value and the accepted range.
 * Every other key (by convention {@code governance.<provider>.*}) is passed through unchecked for
 * providers to read with {@link #raw}; providers validate their own keys.
 *
 * <p>Immutable; thread-safe.
 */
public final class GovernanceOptions {

    public static final String PROVIDER = "governance.provider";
    public static final String MEMORY_BUDGET = "governance.memory.budget";
    public static final String PAGE_SIZE = "governance.memory.page-size";
    public static final String SPILL_DIRS = "governance.spill.dirs";
    public static final String SPILL_MAX_BYTES = "governance.spill.max-bytes";
    public static final String SPILL_SWEEP = "governance.spill.sweep-orphans";
    public static final String COMPACTION_TASK_THREADS = "governance.compaction.task-threads";
    public static final String COMPACTION_MAX_THREADS = "governance.compaction.max-threads";
    /** The table option Paimon's proposal names; honoured when the governance key is not given. */
    public static final String TABLE_COMPACTION_TASK_THREADS = "compaction.task-threads";

    public static final long MIN_PAGE_SIZE = ProviderOptions.MIN_PAGE_SIZE;
    public static final long MAX_PAGE_SIZE = ProviderOptions.MAX_PAGE_SIZE;
    /** The smallest budget, in pages: Paimon needs 3 pages per writer plus room to work. */
    public static final int MIN_BUDGET_PAGES = 8;

    /** One documented key. */
    public record Key(String name, String defaultValue, String range, String meaning) {}

    /** Every key the runtime owns, in documentation order. */
    public static final List<Key> KEYS =
            List.of(
                    new Key(PROVIDER, "(the only provider present)", "a discovered provider name",
                            "which allocator module governs the write"),
                    new Key(MEMORY_BUDGET, "64m", "at least " + MIN_BUDGET_PAGES + " pages",
                            "the writer's whole memory budget: pages plus estimates"),
                    new Key(PAGE_SIZE, "64k", "a power of two from 4k to 16m",
                            "size of one write-buffer page"),
                    new Key(SPILL_DIRS, "the JVM's java.io.tmpdir",
                            "comma-separated existing, writable directories without '..' segments",
                            "roots under which each write creates its private spill scope"),
                    new Key(SPILL_MAX_BYTES, "unlimited", "a size of at least 1m, or 'unlimited'",
                            "most bytes of spill files one write may hold on disk at once"),
                    new Key(SPILL_SWEEP, "true", "true or false",
                            "remove spill scopes of dead processes when a write opens"),
                    new Key(COMPACTION_TASK_THREADS, "1 (or the table's compaction.task-threads)",
                            "1, a number above 1, or -1",
                            "compaction threads of the write: 1 one thread (Paimon's behaviour), N a pool of N shared"
                                    + " by all buckets, -1 one thread per active bucket up to max-threads"),
                    new Key(COMPACTION_MAX_THREADS, "8", "at least 1",
                            "the most threads task-threads=-1 starts"));

    private static final List<String> OWNED_PREFIXES =
            List.of("governance.memory.", "governance.spill.", "governance.compaction.");

    private final Map<String, String> values;
    private final long budgetBytes;
    private final int pageSize;
    private final List<Path> spillDirs;
    private final long spillMaxBytes;
    private final boolean sweepOrphans;
    private final Integer taskThreads;
    private final int maxCompactionThreads;

    private GovernanceOptions(Map<String, String> values) {
        this.values = values;
        this.pageSize = parsePageSize(get(PAGE_SIZE, "64k"));
        this.budgetBytes = parseBudget(get(MEMORY_BUDGET, "64m"), pageSize);
        this.spillDirs = parseDirs(get(SPILL_DIRS, System.getProperty("java.io.tmpdir")));
        this.spillMaxBytes = parseSpillMax(get(SPILL_MAX_BYTES, "unlimited"));
        this.sweepOrphans = parseBoolean(SPILL_SWEEP, get(SPILL_SWEEP, "true"));
        this.taskThreads = values.containsKey(COMPACTION_TASK_THREADS)
                ? parseTaskThreads(COMPACTION_TASK_THREADS, values.get(COMPACTION_TASK_THREADS))
                : null;
        this.maxCompactionThreads = parsePositive(COMPACTION_MAX_THREADS, get(COMPACTION_MAX_THREADS, "8"));
    }

    /** Defaults for every key. */
    public static GovernanceOptions defaults() {
        return of(Map.of());
    }

    /**
     * Validates {@code values}.
     *
     * @throws IllegalArgumentException naming the key for an unknown runtime key or a bad value
     */
    public static GovernanceOptions of(Map<String, String> values) {
        Map<String, String> copy = new TreeMap<>();
        values.forEach(
                (k, v) -> {
                    if (v == null) {
                        throw new IllegalArgumentException("'" + k + "' has no value");
                    }
                    copy.put(k.trim(), v.trim());
                });
        for (String key : copy.keySet()) {
            boolean owned = key.equals(PROVIDER) || OWNED_PREFIXES.stream().anyMatch(key::startsWith);
            if (owned && KEYS.stream().noneMatch(k -> k.name().equals(key))) {
                throw new IllegalArgumentException(
                        "unknown option '" + key + "'; known keys: "
                                + String.join(", ", KEYS.stream().map(Key::name).toList()));
            }
        }
        return new GovernanceOptions(Collections.unmodifiableMap(copy));
    }

    /** A copy with {@code key} set to {@code value}, validated again. */
    public GovernanceOptions with(String key, String value) {
        Map<String, String> copy = new TreeMap<>(values);
        copy.put(key, value);
        return of(copy);
    }

    private String get(String key, String defaultValue) {
        String v = values.get(key);
        return v == null ? defaultValue : v;
    }

    /** The provider name, if one was configured. */
    public Optional<String> provider() {
        return Optional.ofNullable(values.get(PROVIDER)).filter(s -> !s.isBlank());
    }

    /** {@value #MEMORY_BUDGET}: the write's whole memory budget in bytes. */
    public long budgetBytes() {
        return budgetBytes;
    }

    /** {@value #PAGE_SIZE}: the write-buffer page size in bytes. */
    public int pageSize() {
        return pageSize;
    }

    /** {@value #SPILL_DIRS}: the spill roots as real paths (absolute, symbolic links resolved). */
    public List<Path> spillDirs() {
        return spillDirs;
    }

    /** {@value #SPILL_MAX_BYTES}: the spill byte budget; {@link Long#MAX_VALUE} when unlimited. */
    public long spillMaxBytes() {
        return spillMaxBytes;
    }

    /** {@value #SPILL_SWEEP}. */
    public boolean sweepOrphans() {
        return sweepOrphans;
    }

    /**
     * {@value #COMPACTION_TASK_THREADS}: 1, N above 1, or -1; empty when not given, so that the
     * table's {@value #TABLE_COMPACTION_TASK_THREADS} may decide ({@link #compactionTaskThreads(Map)}).
     */
    public Optional<Integer> compactionTaskThreads() {
        return Optional.ofNullable(taskThreads);
    }

    /**
     * The compaction thread setting for a table: {@value #COMPACTION_TASK_THREADS} if given, else the
     * table's {@value #TABLE_COMPACTION_TASK_THREADS}, else 1.
     *
     * @throws IllegalArgumentException naming the table option when its value is not valid
     */
    public int compactionTaskThreads(Map<String, String> tableOptions) {
        if (taskThreads != null) {
            return taskThreads;
        }
        String fromTable = tableOptions.get(TABLE_COMPACTION_TASK_THREADS);
        return fromTable == null ? 1 : parseTaskThreads(TABLE_COMPACTION_TASK_THREADS, fromTable);
    }

    /** {@value #COMPACTION_MAX_THREADS}: the bound of task-threads=-1. */
    public int compactionMaxThreads() {
        return maxCompactionThreads;
    }

    /** The value given for any key, such as a provider's own {@code governance.flink.weight}. */
    public Optional<String> raw(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /**
     * What the provider is told: the validated budget, page size and spill settings, and every key
     * the runtime does not own.
     */
    public ProviderOptions providerOptions() {
        ProviderOptions.Builder b = ProviderOptions.builder(budgetBytes, pageSize)
                .spillDirs(spillDirs, values.containsKey(SPILL_DIRS))
                .spillMaxBytes(spillMaxBytes);
        values.forEach((k, v) -> {
            boolean owned = k.equals(PROVIDER) || OWNED_PREFIXES.stream().anyMatch(k::startsWith);
            if (!owned) {
                b.providerKey(k, v);
            }
        });
        return b.build();
    }

    /** Every key given, with its value. */
    public Map<String, String> asMap() {
        return values;
    }

    private static int parsePageSize(String text) {
        long size = Sizes.parse(PAGE_SIZE, text);
        if (size < MIN_PAGE_SIZE || size > MAX_PAGE_SIZE || Long.bitCount(size) != 1) {
            throw new IllegalArgumentException(
                    "'" + PAGE_SIZE + "' = '" + text + "' must be a power of two from 4k to 16m");
        }
        return (int) size;
    }

    private static long parseBudget(String text, int pageSize) {
        long budget = Sizes.parse(MEMORY_BUDGET, text);
        long min = (long) MIN_BUDGET_PAGES * pageSize;
        if (budget < min) {
            throw new IllegalArgumentException(
                    "'" + MEMORY_BUDGET + "' = '" + text + "' is below the minimum of "
                            + Sizes.format(min) + " (" + MIN_BUDGET_PAGES + " pages of "
                            + Sizes.format(pageSize) + ")");
        }
        return budget;
    }

    /**
     * Each entry must name an existing, writable directory without a {@code ..} segment. A relative
     * entry is resolved against the working directory now, and every entry is replaced by its real
     * path (symbolic links resolved), so the roots cannot change meaning later.
     */
    private static List<Path> parseDirs(String text) {
        List<Path> dirs = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            dirs.add(spillRoot(part.trim()));
        }
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("'" + SPILL_DIRS + "' = '" + text + "' names no directory");
        }
        return List.copyOf(dirs);
    }

    private static Path spillRoot(String entry) {
        Path given;
        try {
            given = Path.of(entry);
        } catch (InvalidPathException e) {
            throw badRoot(entry, "which is not a valid path (" + e.getReason() + ")");
        }
        for (Path segment : given) {
            if (segment.toString().equals("..")) {
                throw badRoot(entry, "which has a '..' segment; name the directory itself");
            }
        }
        Path dir = given.toAbsolutePath().normalize();
        if (Files.isRegularFile(dir)) {
            throw badRoot(entry, "which is a file, not a directory");
        }
        if (!Files.isDirectory(dir)) {
            throw badRoot(entry, "which is not an existing directory");
        }
        if (!Files.isWritable(dir)) {
            throw badRoot(entry, "which this process cannot write to");
        }
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            throw badRoot(entry, "whose real path cannot be read (" + e + ")");
        }
    }

    private static IllegalArgumentException badRoot(String entry, String why) {
        return new IllegalArgumentException("'" + SPILL_DIRS + "' names '" + entry + "', " + why);
    }

    private static long parseSpillMax(String text) {
        if (text.equalsIgnoreCase("unlimited")) {
            return Long.MAX_VALUE;
        }
        long bytes = Sizes.parse(SPILL_MAX_BYTES, text);
        if (bytes < (1 << 20)) {
            throw new IllegalArgumentException(
                    "'" + SPILL_MAX_BYTES + "' = '" + text + "' must be at least 1m, or 'unlimited'");
        }
        return bytes;
    }

    private static int parseTaskThreads(String key, String text) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            value = 0;
        }
        if (value == 0 || value < -1) {
            throw new IllegalArgumentException(
                    "'" + key + "' = '" + text + "' must be 1 (one thread), a number above 1 (a shared pool),"
                            + " or -1 (one thread per active bucket)");
        }
        return value;
    }

    private static int parsePositive(String key, String text) {
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be a whole number of at least 1");
    }

    private static boolean parseBoolean(String key, String text) {
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be true or false");
    }

    @Override
    public String toString() {
        return "GovernanceOptions" + values;
    }
}
