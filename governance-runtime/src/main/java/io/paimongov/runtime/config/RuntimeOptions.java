package io.paimongov.runtime.config;

import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every key the runtime owns, each defined once ({@link ConfigOption}): name, type, default, range,
 * meaning and the parser that enforces the range. The range text and the parser's check use the
 * same constants, and the key table of {@code docs/configuration.md} is printed from {@link #ALL}.
 *
 * <p>Stateless; thread-safe. The parsers throw {@link IllegalArgumentException} naming the key, the
 * value and the accepted range; the messages are pinned by {@code BadConfigurationTest} and quoted
 * in docs/configuration.md and docs/reliability.md.
 */
final class RuntimeOptions {

    /** Paimon needs 3 pages per writer plus room to work. */
    private static final int MIN_BUDGET_PAGES = 8;
    /**
     * An {@code auto} page size leaves the budget at least this many pages. A writer of its own
     * needs its first pages and a share of the budget as write buffer, so the page size decides
     * how many writers a small budget admits: at 3 MiB, 64 KiB pages admitted 3 of 8 writers (the
     * other 5 went through the shared sort and were spilled twice), 16 KiB pages all 8 (the spill
     * series' primary-key Parquet write in 2.9 s instead of 4.3 s, docs/performance.md).
     */
    static final int AUTO_PAGES = 192;
    /** The largest {@code auto} page size: the page size the footprints were measured at. */
    static final int MAX_AUTO_PAGE_SIZE = 64 << 10;
    private static final long MIN_SPILL_BYTES = 1 << 20;
    private static final int MIN_MAX_THREADS = 1;
    private static final long MAX_STOP_MINUTES = 60;
    private static final long MAX_RECLAIM_WAIT_SECONDS = 60;

    private static final List<String> OWNED_PREFIXES =
            List.of("governance.memory.", "governance.spill.", "governance.compaction.", "governance.write.",
                    "governance.orphans.");

    private RuntimeOptions() {}

    static final ConfigOption<String> PROVIDER =
            ConfigOption.define("governance.provider", "name", (key, text, others) -> text)
                    .noDefault("the only provider present")
                    .range("a discovered provider name")
                    .meaning("Which allocator module governs the write.")
                    .build();

    // The minimum is counted in pages, so the budget asks for the page size (declared below, hence qualified).
    static final ConfigOption<Long> MEMORY_BUDGET =
            ConfigOption.define("governance.memory.budget", "size",
                            (key, text, others) -> budget(key, text, others.get(RuntimeOptions.PAGE_SIZE)))
                    .defaultValue("64m")
                    .range("at least " + MIN_BUDGET_PAGES + " pages")
                    .meaning("The writer's whole memory budget: pages plus estimates.")
                    .build();

    /**
     * The page size's value when it is {@code auto}: {@link #pageSizeFor} of the budget, which is
     * parsed after it.
     */
    static final int AUTO_PAGE_SIZE = 0;

    static final ConfigOption<Integer> PAGE_SIZE =
            ConfigOption.define("governance.memory.page-size", "size", (key, text, others) -> pageSize(key, text))
                    .defaultValue("auto", "the largest power of two at most the budget / " + AUTO_PAGES + ", from `"
                            + Sizes.format(ProviderOptions.MIN_PAGE_SIZE) + "` to `" + Sizes.format(MAX_AUTO_PAGE_SIZE)
                            + "`: `" + Sizes.format(MAX_AUTO_PAGE_SIZE) + "` from a budget of `"
                            + Sizes.format((long) AUTO_PAGES * MAX_AUTO_PAGE_SIZE) + "`")
                    .range("`auto`, or a power of two from `" + Sizes.format(ProviderOptions.MIN_PAGE_SIZE) + "` to `"
                            + Sizes.format(ProviderOptions.MAX_PAGE_SIZE) + "`")
                    .meaning("Size of one write-buffer page.")
                    .build();

    static final ConfigOption<MemorySharing> MEMORY_SHARING =
            ConfigOption.define("governance.memory.sharing", "enum", (key, text, others) -> sharing(key, text))
                    .defaultValue("fair")
                    .range("`fair` or `none`")
                    .meaning("How writes that the engine integration puts in one shared memory (the Flink connector:"
                            + " the governed writers of a slot) use it: `fair` each is guaranteed its budget as its"
                            + " share, borrows what the others leave unused and gets its share back from borrowers"
                            + " when it needs it; `none` each keeps its own fixed budget. Changes nothing for a write"
                            + " given no shared memory (see memory-sharing.md).")
                    .build();

    static final ConfigOption<Long> MEMORY_RECLAIM_WAIT =
            ConfigOption.define("governance.memory.reclaim-wait", "duration",
                            (key, text, others) -> millis(key, text, MAX_RECLAIM_WAIT_SECONDS * 1000, MAX_RECLAIM_WAIT_SECONDS + "s"))
                    .defaultValue("1s")
                    .range("`<n>ms`, `<n>s` or `<n>m`, at most `" + MAX_RECLAIM_WAIT_SECONDS + "s`")
                    .meaning("In a shared memory, the longest a write that takes its share back waits for the"
                            + " borrowers to give the memory back (at their next row, or at once when idle) before it"
                            + " goes on; it stops waiting when cancelled. `0ms` does not wait.")
                    .build();

    static final ConfigOption<List<Path>> SPILL_DIRS =
            ConfigOption.define("governance.spill.dirs", "directory list",
                            (key, text, others) -> SpillRoots.parse(key, text))
                    .computedDefault(() -> System.getProperty("java.io.tmpdir"), "the JVM's `java.io.tmpdir`")
                    .range("comma-separated existing, writable directories without `..` segments")
                    .meaning("Roots under which each write creates its private spill scope.")
                    .build();

    static final ConfigOption<Long> SPILL_MAX_BYTES =
            ConfigOption.define("governance.spill.max-bytes", "size", (key, text, others) -> spillMax(key, text))
                    .defaultValue("unlimited")
                    .range("a size of at least `" + Sizes.format(MIN_SPILL_BYTES) + "`, or `unlimited`")
                    .meaning("Most bytes of spill files one write may hold on disk at once.")
                    .build();

    static final ConfigOption<Boolean> SPILL_SWEEP =
            ConfigOption.define("governance.spill.sweep-orphans", "boolean", (key, text, others) -> bool(key, text))
                    .defaultValue("true")
                    .range("`true` or `false`")
                    .meaning("Remove spill scopes of dead processes when a write opens.")
                    .build();

    static final ConfigOption<Integer> COMPACTION_TASK_THREADS =
            ConfigOption.define("governance.compaction.task-threads", "integer",
                            (key, text, others) -> taskThreads(key, text))
                    .defaultValue("1", "or the table's `compaction.task-threads`")
                    .range("`1`, a number above 1, or `-1`")
                    .meaning("Compaction threads of the write: `1` one thread (Paimon's behaviour), `N` a pool of N"
                            + " shared by all buckets, `-1` one thread per active bucket up to `max-threads`.")
                    .build();

    static final ConfigOption<Integer> COMPACTION_MAX_THREADS =
            ConfigOption.define("governance.compaction.max-threads", "integer",
                            (key, text, others) -> maxThreads(key, text))
                    .defaultValue("8")
                    .range("at least `" + MIN_MAX_THREADS + "`")
                    .meaning("The most threads `task-threads=-1` starts.")
                    .build();

    static final ConfigOption<Long> COMPACTION_STOP_TIMEOUT =
            ConfigOption.define("governance.compaction.stop-timeout", "duration",
                            (key, text, others) -> millis(key, text, MAX_STOP_MINUTES * 60_000, MAX_STOP_MINUTES + "m"))
                    .defaultValue("30s")
                    .range("`<n>ms`, `<n>s` or `<n>m`, at most `" + MAX_STOP_MINUTES + "m`")
                    .meaning("How long closing or cancelling a write waits for its compaction threads to end."
                            + " A thread still running then keeps the write's pages, reservations and spill scope"
                            + " until it ends, and the close fails with `CleanupException`.")
                    .build();

    static final ConfigOption<Long> WRITE_EARLY_CLOSE_MIN_BYTES =
            ConfigOption.define("governance.write.early-close-min-bytes", "size",
                            (key, text, others) -> Sizes.parse(key, text))
                    .defaultValue("4m")
                    .range("a size (`0` closes any writer)")
                    .meaning("A writer is closed early to make room for another only once it has taken this much"
                            + " input since it opened (or none at all): bounds how small early-rolled files get."
                            + " Writers that may not be closed yet leave new writers to the shared sort.")
                    .build();

    static final ConfigOption<Boolean> WRITE_SHARED_SORT =
            ConfigOption.define("governance.write.shared-sort", "boolean", (key, text, others) -> bool(key, text))
                    .defaultValue("true")
                    .range("`true` or `false`")
                    .meaning("Rows of writers that get no writer of their own wait in one sort shared by all"
                            + " writers and are written writer by writer at prepareCommit. With `false` such a"
                            + " writer is refused with `ResourceExhaustedException`.")
                    .build();

    /** Empty for {@code off}. */
    static final ConfigOption<Optional<Duration>> ORPHANS_OLDER_THAN =
            ConfigOption.define("governance.orphans.older-than", "duration",
                            (key, text, others) -> orphansOlderThan(key, text))
                    .defaultValue("1d", "Paimon's own margin")
                    .range("a duration such as `0s`, `90s`, `10m`, `2h`, `1d`, or `off`")
                    .meaning("When a write opens, files of its table that no snapshot references and that are older"
                            + " than this are removed with Paimon's orphan-file clean (data, changelog, manifest and"
                            + " index files left by a crashed or abandoned write); `off` keeps them.")
                    .build();

    /** Every key the runtime owns, in documentation order, which is also the order values are checked in. */
    static final List<ConfigOption<?>> ALL = List.of(
            PROVIDER, MEMORY_BUDGET, PAGE_SIZE, MEMORY_SHARING, MEMORY_RECLAIM_WAIT, SPILL_DIRS, SPILL_MAX_BYTES, SPILL_SWEEP,
            COMPACTION_TASK_THREADS, COMPACTION_MAX_THREADS, COMPACTION_STOP_TIMEOUT, WRITE_EARLY_CLOSE_MIN_BYTES,
            WRITE_SHARED_SORT, ORPHANS_OLDER_THAN);

    /**
     * Whether {@code key} is the runtime's: {@code governance.provider} and every key under {@code
     * governance.memory.}, {@code governance.spill.}, {@code governance.compaction.}, {@code governance.write.} and
     * {@code governance.orphans.}, defined or
     * not (an undefined one is a typo). Every other key belongs to a provider.
     */
    static boolean owns(String key) {
        return key.equals(PROVIDER.key()) || OWNED_PREFIXES.stream().anyMatch(key::startsWith);
    }

    /** The {@code auto} page size of {@code budgetBytes}. */
    static int pageSizeFor(long budgetBytes) {
        long most = Math.max(ProviderOptions.MIN_PAGE_SIZE, Math.min(MAX_AUTO_PAGE_SIZE, budgetBytes / AUTO_PAGES));
        return Integer.highestOneBit((int) most);
    }

    private static int pageSize(String key, String text) {
        if (text.equalsIgnoreCase("auto")) {
            return AUTO_PAGE_SIZE;
        }
        long size = Sizes.parse(key, text);
        if (size < ProviderOptions.MIN_PAGE_SIZE || size > ProviderOptions.MAX_PAGE_SIZE
                || Long.bitCount(size) != 1) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be 'auto' or a power of two from "
                    + Sizes.format(ProviderOptions.MIN_PAGE_SIZE) + " to "
                    + Sizes.format(ProviderOptions.MAX_PAGE_SIZE));
        }
        return (int) size;
    }

    private static long budget(String key, String text, int givenPageSize) {
        long budget = Sizes.parse(key, text);
        int pageSize = givenPageSize == AUTO_PAGE_SIZE ? pageSizeFor(budget) : givenPageSize;
        long min = (long) MIN_BUDGET_PAGES * pageSize;
        if (budget < min) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' is below the minimum of "
                    + Sizes.format(min) + " (" + MIN_BUDGET_PAGES + " pages of " + Sizes.format(pageSize) + ")");
        }
        return budget;
    }

    private static long spillMax(String key, String text) {
        if (text.equalsIgnoreCase("unlimited")) {
            return Long.MAX_VALUE;
        }
        long bytes = Sizes.parse(key, text);
        if (bytes < MIN_SPILL_BYTES) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be at least "
                    + Sizes.format(MIN_SPILL_BYTES) + ", or 'unlimited'");
        }
        return bytes;
    }

    private static Optional<Duration> orphansOlderThan(String key, String text) {
        if (text.equalsIgnoreCase("off")) {
            return Optional.empty();
        }
        return Optional.of(Durations.parse(key, text, ", or 'off'"));
    }

    private static boolean bool(String key, String text) {
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be true or false");
    }

    private static int taskThreads(String key, String text) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            value = 0;
        }
        if (value == 0 || value < -1) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be 1 (one thread), a number above 1"
                    + " (a shared pool), or -1 (one thread per active bucket)");
        }
        return value;
    }

    /** A duration in milliseconds: {@code <n>ms}, {@code <n>s} or {@code <n>m}, up to {@code maxMillis} ({@code max} in the error). */
    private static long millis(String key, String text, long maxMillis, String max) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m)").matcher(text.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            long ms = switch (m.group(2)) {
                case "ms" -> n;
                case "s" -> n * 1000;
                default -> n * 60_000;
            };
            if (ms <= maxMillis) {
                return ms;
            }
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be a duration such as '500ms', '30s' or"
                + " '2m', at most '" + max + "'");
    }

    private static MemorySharing sharing(String key, String text) {
        for (MemorySharing value : MemorySharing.values()) {
            if (value.name().equalsIgnoreCase(text)) {
                return value;
            }
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' must be 'fair' or 'none'");
    }

    private static int maxThreads(String key, String text) {
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= MIN_MAX_THREADS) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below, as a value out of range
        }
        throw new IllegalArgumentException(
                "'" + key + "' = '" + text + "' must be a whole number of at least " + MIN_MAX_THREADS);
    }
}
