package io.paimongov.runtime.config;

import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The validated configuration of one write. Built from string keys and values ({@link #of}), so
 * the same keys work in engine configs, table options and the CLI. Every key is defined once, with
 * its type, default, range and meaning, in {@link RuntimeOptions}; {@code docs/configuration.md}
 * prints that table.
 *
 * <p>Keys under {@code governance.memory.}, {@code governance.spill.}, {@code
 * governance.compaction.}, {@code governance.write.}, {@code governance.orphans.} and {@code governance.provider} belong to the runtime and are validated
 * here: an unknown key or a bad value gets an {@link IllegalArgumentException} that names the key,
 * the value and the accepted range. Every other key (by convention {@code governance.<provider>.*})
 * is passed through unchecked for providers to read with {@link #raw}; providers validate their
 * own keys.
 *
 * <p>Immutable; thread-safe.
 */
public final class GovernanceOptions {

    public static final String PROVIDER = RuntimeOptions.PROVIDER.key();
    public static final String MEMORY_BUDGET = RuntimeOptions.MEMORY_BUDGET.key();
    public static final String PAGE_SIZE = RuntimeOptions.PAGE_SIZE.key();
    public static final String MEMORY_SHARING = RuntimeOptions.MEMORY_SHARING.key();
    public static final String MEMORY_RECLAIM_WAIT = RuntimeOptions.MEMORY_RECLAIM_WAIT.key();
    public static final String SPILL_DIRS = RuntimeOptions.SPILL_DIRS.key();
    public static final String SPILL_MAX_BYTES = RuntimeOptions.SPILL_MAX_BYTES.key();
    public static final String SPILL_SWEEP = RuntimeOptions.SPILL_SWEEP.key();
    public static final String COMPACTION_TASK_THREADS = RuntimeOptions.COMPACTION_TASK_THREADS.key();
    public static final String COMPACTION_MAX_THREADS = RuntimeOptions.COMPACTION_MAX_THREADS.key();
    public static final String COMPACTION_STOP_TIMEOUT = RuntimeOptions.COMPACTION_STOP_TIMEOUT.key();
    public static final String WRITE_EARLY_CLOSE_MIN_BYTES = RuntimeOptions.WRITE_EARLY_CLOSE_MIN_BYTES.key();
    public static final String WRITE_SHARED_SORT = RuntimeOptions.WRITE_SHARED_SORT.key();
    public static final String ORPHANS_OLDER_THAN = RuntimeOptions.ORPHANS_OLDER_THAN.key();
    /** The table option Paimon's proposal names; honoured when the governance key is not given. */
    public static final String TABLE_COMPACTION_TASK_THREADS = "compaction.task-threads";

    private final Map<String, String> values;
    private final String provider;
    /** The budget, page size and spill settings, held once: what the provider is told. */
    private final ProviderOptions told;
    private final MemorySharing memorySharing;
    private final long reclaimWaitMillis;
    private final boolean sweepOrphans;
    private final int taskThreads;
    private final int maxCompactionThreads;
    private final long compactionStopMillis;
    private final long earlyCloseMinBytes;
    private final boolean sharedSort;
    private final Optional<Duration> orphansOlderThan;

    private GovernanceOptions(Map<String, String> values) {
        this.values = values;
        Parsed parsed = new Parsed(values);
        RuntimeOptions.ALL.forEach(parsed::get);
        this.provider = parsed.get(RuntimeOptions.PROVIDER);
        long budget = parsed.get(RuntimeOptions.MEMORY_BUDGET);
        int pageSize = parsed.get(RuntimeOptions.PAGE_SIZE);
        ProviderOptions.Builder b = ProviderOptions.builder(
                        budget, pageSize == RuntimeOptions.AUTO_PAGE_SIZE ? RuntimeOptions.pageSizeFor(budget) : pageSize)
                .spillDirs(parsed.get(RuntimeOptions.SPILL_DIRS), values.containsKey(SPILL_DIRS))
                .spillMaxBytes(parsed.get(RuntimeOptions.SPILL_MAX_BYTES));
        values.forEach((k, v) -> {
            if (!RuntimeOptions.owns(k)) {
                b.providerKey(k, v);
            }
        });
        this.told = b.build();
        this.memorySharing = parsed.get(RuntimeOptions.MEMORY_SHARING);
        this.reclaimWaitMillis = parsed.get(RuntimeOptions.MEMORY_RECLAIM_WAIT);
        this.sweepOrphans = parsed.get(RuntimeOptions.SPILL_SWEEP);
        this.taskThreads = parsed.get(RuntimeOptions.COMPACTION_TASK_THREADS);
        this.maxCompactionThreads = parsed.get(RuntimeOptions.COMPACTION_MAX_THREADS);
        this.compactionStopMillis = parsed.get(RuntimeOptions.COMPACTION_STOP_TIMEOUT);
        this.earlyCloseMinBytes = parsed.get(RuntimeOptions.WRITE_EARLY_CLOSE_MIN_BYTES);
        this.sharedSort = parsed.get(RuntimeOptions.WRITE_SHARED_SORT);
        this.orphansOlderThan = parsed.get(RuntimeOptions.ORPHANS_OLDER_THAN);
    }

    /**
     * Each key's value, parsed once, on first use: a key whose range depends on another (the
     * budget, counted in pages) parses that one first, so its error is the one reported.
     */
    private static final class Parsed implements ConfigOption.Values {
        private final Map<String, String> given;
        private final Map<ConfigOption<?>, Object> values = new HashMap<>();

        Parsed(Map<String, String> given) {
            this.given = given;
        }

        @Override
        @SuppressWarnings("unchecked") // each entry was put by its own option's parser
        public <U> U get(ConfigOption<U> option) {
            if (!values.containsKey(option)) {
                values.put(option, option.valueIn(given, this));
            }
            return (U) values.get(option);
        }
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
        List<String> known = RuntimeOptions.ALL.stream().map(ConfigOption::key).toList();
        for (String key : copy.keySet()) {
            if (RuntimeOptions.owns(key) && !known.contains(key)) {
                throw new IllegalArgumentException(
                        "unknown option '" + key + "'; known keys: " + String.join(", ", known));
            }
        }
        return new GovernanceOptions(Collections.unmodifiableMap(copy));
    }

    /**
     * The {@code governance.*} keys of {@code values} (other keys are ignored: table options, engine
     * settings), validated for a write that runs on {@code provider}: as {@link #of}, and besides a
     * {@code governance.*} key that is neither the runtime's nor under {@code governance.<provider>.}
     * is refused, and so is a {@code governance.provider} other than {@code provider}. Connectors,
     * which know their provider, call this: a misspelt key fails instead of passing to no one.
     *
     * @throws IllegalArgumentException naming the key
     */
    public static GovernanceOptions forProvider(String provider, Map<String, String> values) {
        Map<String, String> governance = new TreeMap<>();
        String own = "governance." + provider + ".";
        values.forEach((k, v) -> {
            String key = k.trim();
            if (!key.startsWith("governance.")) {
                return;
            }
            if (!RuntimeOptions.owns(key) && !key.startsWith(own)) {
                throw new IllegalArgumentException("unknown option '" + key + "': a write on provider '" + provider
                        + "' takes the runtime's keys (" + String.join(", ", RuntimeOptions.ALL.stream().map(ConfigOption::key).toList())
                        + ") and the provider's (" + own + "*)");
            }
            governance.put(key, v);
        });
        String asked = governance.get(PROVIDER);
        if (asked != null && !asked.trim().equals(provider)) {
            throw new IllegalArgumentException("'" + PROVIDER + "' = '" + asked.trim() + "', but this write runs on provider '"
                    + provider + "'; leave the key out");
        }
        return of(governance);
    }

    /** The options as the keys and values they were given with (trimmed); the map to pass on. */
    public Map<String, String> asMap() {
        return values;
    }

    /** A copy with {@code key} set to {@code value}, validated again. */
    public GovernanceOptions with(String key, String value) {
        Map<String, String> copy = new TreeMap<>(values);
        copy.put(key, value);
        return of(copy);
    }

    /** The provider name, if one was configured. */
    public Optional<String> provider() {
        return Optional.ofNullable(provider).filter(s -> !s.isBlank());
    }

    /** {@code governance.memory.budget}: the write's whole memory budget in bytes. */
    public long budgetBytes() {
        return told.budgetBytes();
    }

    /** {@code governance.memory.page-size}: the write-buffer page size in bytes ({@code auto} resolved from the budget). */
    public int pageSize() {
        return told.pageSize();
    }

    /** {@code governance.memory.sharing}: how the write uses a shared memory its engine offers. */
    public MemorySharing memorySharing() {
        return memorySharing;
    }

    /** {@code governance.memory.reclaim-wait}, in milliseconds. */
    public long reclaimWaitMillis() {
        return reclaimWaitMillis;
    }

    /** {@code governance.spill.dirs}: the spill roots as real paths (absolute, symbolic links resolved). */
    public List<Path> spillDirs() {
        return told.spillDirs();
    }

    /** {@code governance.spill.max-bytes}: the spill byte budget; {@link Long#MAX_VALUE} when unlimited. */
    public long spillMaxBytes() {
        return told.spillMaxBytes();
    }

    /** {@code governance.spill.sweep-orphans}. */
    public boolean sweepOrphans() {
        return sweepOrphans;
    }

    /**
     * {@code governance.compaction.task-threads}: 1, N above 1, or -1; empty when not given, so that the
     * table's {@value #TABLE_COMPACTION_TASK_THREADS} may decide ({@link #compactionTaskThreads(Map)}).
     */
    public Optional<Integer> compactionTaskThreads() {
        return values.containsKey(COMPACTION_TASK_THREADS) ? Optional.of(taskThreads) : Optional.empty();
    }

    /**
     * The compaction thread setting for a table: {@code governance.compaction.task-threads} if given, else the
     * table's {@value #TABLE_COMPACTION_TASK_THREADS}, else the key's default.
     *
     * @throws IllegalArgumentException naming the table option when its value is not valid
     */
    public int compactionTaskThreads(Map<String, String> tableOptions) {
        String fromTable = tableOptions.get(TABLE_COMPACTION_TASK_THREADS);
        if (values.containsKey(COMPACTION_TASK_THREADS) || fromTable == null) {
            return taskThreads;
        }
        return RuntimeOptions.COMPACTION_TASK_THREADS.parseAs(TABLE_COMPACTION_TASK_THREADS, fromTable);
    }

    /** {@code governance.compaction.max-threads}: the bound of task-threads=-1. */
    public int compactionMaxThreads() {
        return maxCompactionThreads;
    }

    /** {@code governance.compaction.stop-timeout}, in milliseconds. */
    public long compactionStopMillis() {
        return compactionStopMillis;
    }

    /** {@code governance.write.early-close-min-bytes}. */
    public long earlyCloseMinBytes() {
        return earlyCloseMinBytes;
    }

    /** {@code governance.write.shared-sort}. */
    public boolean sharedSort() {
        return sharedSort;
    }

    /**
     * {@code governance.orphans.older-than}: how old an unreferenced file of the table must be for the
     * opening write to remove it; empty for {@code off}.
     */
    public Optional<Duration> orphansOlderThan() {
        return orphansOlderThan;
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
        return told;
    }

    /**
     * What the provider is told for a write that may hold up to {@code budgetBytes}, more than its
     * own budget: a member of a shared memory, which may borrow up to the pool's limit. The page size
     * stays this write's ({@code auto} resolved from {@link #budgetBytes()}).
     *
     * @throws IllegalArgumentException when {@code budgetBytes} is below one page
     */
    public ProviderOptions providerOptions(long budgetBytes) {
        ProviderOptions.Builder b = ProviderOptions.builder(budgetBytes, told.pageSize())
                .spillDirs(told.spillDirs(), told.spillDirsGiven())
                .spillMaxBytes(told.spillMaxBytes());
        told.providerKeys().forEach(b::providerKey);
        return b.build();
    }


    @Override
    public String toString() {
        return "GovernanceOptions" + values;
    }
}
