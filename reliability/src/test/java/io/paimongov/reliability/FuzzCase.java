package io.paimongov.reliability;

import io.paimongov.tck.TableModes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * What one iteration of the governance fuzzer runs, all drawn from its seed: the provider, the
 * engine's size, the governed writes that share it ({@link WritePlan}) and the events that strike
 * while they run ({@link Shrink}). The same seed draws the same case; the interleaving of the
 * writes' threads is the scheduler's, so a seed reproduces the case, not the exact schedule.
 *
 * <p>Immutable; thread-safe.
 *
 * @param seed the iteration's seed
 * @param allocator the provider, on its own standalone engine
 * @param engineBytes the standalone engine's memory
 * @param writes the writes, each on its own thread, table, context and budget
 * @param shrink the engine memory another consumer takes mid-run and gives back later, or null
 */
record FuzzCase(long seed, Allocator allocator, long engineBytes, List<WritePlan> writes, Shrink shrink) {

    static final long KIB = 1024;
    static final long MIB = 1024 * KIB;

    private static final long[] ENGINE_SIZES = {6 * MIB, 8 * MIB, 12 * MIB, 16 * MIB, 24 * MIB, 32 * MIB};
    private static final String[] FORMATS = {"parquet", "orc", "avro"};
    private static final String[] PAGE_SIZES = {"4k", "8k", "16k", "32k", "64k", "auto"};
    /** A budget as a multiple of the write's even share of the engine, in eighths: some are larger than the share. */
    private static final int[] SHARE_EIGHTHS = {4, 8, 8, 12, 16, 24};
    private static final int[] TASK_THREADS = {1, 1, 2, 4, -1};

    /**
     * One governed write.
     *
     * @param index its number in the iteration (its thread, table and context are named after it)
     * @param mode the table mode
     * @param format the table's {@code file.format}
     * @param partitions partitions the rows spread over
     * @param buckets buckets of a fixed-bucket mode (the others ignore it)
     * @param budgetBytes {@code governance.memory.budget}
     * @param pageSize {@code governance.memory.page-size}
     * @param rows rows written
     * @param keys keys per partition the rows draw from
     * @param valueBytes characters of each value
     * @param spillMax {@code governance.spill.max-bytes}
     * @param taskThreads {@code governance.compaction.task-threads}
     * @param cancelAtRow the row after which another thread cancels the write ({@code rows}: once
     *     prepareCommit began), or -1
     * @param rowSeed the seed of the write's rows
     */
    record WritePlan(
            int index, TableModes mode, String format, int partitions, int buckets, long budgetBytes, String pageSize,
            int rows, int keys, int valueBytes, String spillMax, int taskThreads, int cancelAtRow, long rowSeed) {

        /** Writers the rows can open at most: partitions times buckets (one bucket per partition when the write assigns them). */
        int writers() {
            return partitions * (fixedBuckets() ? buckets : 1);
        }

        boolean fixedBuckets() {
            return mode == TableModes.PK || mode == TableModes.PK_DV || mode == TableModes.PK_LOOKUP || mode == TableModes.APPEND_BUCKETED;
        }

        String describe() {
            return "w" + index + " " + mode.label() + "/" + format + " " + partitions + "p" + (fixedBuckets() ? "x" + buckets + "b" : "")
                    + " budget " + size(budgetBytes) + " page " + pageSize + " rows " + rows + " keys " + keys + " v" + valueBytes
                    + (spillMax.equals("unlimited") ? "" : " spill-max " + spillMax)
                    + " ct " + taskThreads + (cancelAtRow < 0 ? "" : cancelAtRow == rows ? " cancel@prepare" : " cancel@" + cancelAtRow);
        }
    }

    /**
     * Another consumer of the engine takes {@code eighths}/8 of the engine's free memory when write
     * {@code write} has written {@code atRow} rows, and gives it back when that write has written
     * {@code backAtRow} rows or ended.
     */
    record Shrink(int write, int atRow, int backAtRow, int eighths) {
        String describe() {
            return "shrink by " + eighths + "/8 of free at w" + write + "@" + atRow + ", back at w" + write + "@" + backAtRow;
        }
    }

    /** The case of {@code seed}; {@code maxRows} bounds each write's rows. */
    static FuzzCase draw(long seed, int maxRows) {
        Random r = new Random(seed);
        Allocator allocator = Allocator.values()[r.nextInt(Allocator.values().length)];
        long engine = ENGINE_SIZES[r.nextInt(ENGINE_SIZES.length)];
        int n = 2 + r.nextInt(7);
        List<WritePlan> writes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            writes.add(drawWrite(r, i, engine, n, maxRows));
        }
        Shrink shrink = null;
        if (r.nextBoolean()) {
            int w = r.nextInt(n);
            int rows = writes.get(w).rows();
            int at = r.nextInt(rows);
            shrink = new Shrink(w, at, at + r.nextInt(rows - at + 1), 2 + r.nextInt(7));
        }
        return new FuzzCase(seed, allocator, engine, List.copyOf(writes), shrink);
    }

    private static WritePlan drawWrite(Random r, int index, long engine, int writes, int maxRows) {
        TableModes mode = TableModes.values()[r.nextInt(TableModes.values().length)];
        String format = FORMATS[r.nextInt(FORMATS.length)];
        int partitions = 1 + r.nextInt(4);
        int buckets = 1 + r.nextInt(4);
        String pageSize = PAGE_SIZES[r.nextInt(PAGE_SIZES.length)];
        long page = pageSize.equals("auto") ? 4 * KIB : parseKib(pageSize);
        long share = engine / writes * SHARE_EIGHTHS[r.nextInt(SHARE_EIGHTHS.length)] / 8;
        // One write in eight gets the smallest budget, which most primary-key tables refuse at open.
        long floor = r.nextInt(8) == 0 ? MIB : 2 * MIB;
        long budget = Math.min(engine, Math.max(Math.max(floor, 16 * page), share)) / (64 * KIB) * (64 * KIB);
        int rows = Math.max(200, maxRows / 8 + r.nextInt(maxRows - maxRows / 8 + 1));
        int keys = Math.max(1, rows / partitions / (1 + r.nextInt(8)));
        String spillMax = r.nextInt(4) == 0 ? (1 + r.nextInt(3)) + "m" : "unlimited";
        // A write with a spill limit gets long values, so that its rows outgrow its budget and the limit can strike.
        int valueBytes = spillMax.equals("unlimited") ? 16 + r.nextInt(241) : 256 + r.nextInt(769);
        int taskThreads = TASK_THREADS[r.nextInt(TASK_THREADS.length)];
        int cancelAt = r.nextInt(4) == 0 ? (r.nextBoolean() ? rows : r.nextInt(rows)) : -1;
        return new WritePlan(index, mode, format, partitions, buckets, budget, pageSize, rows, keys, valueBytes, spillMax,
                taskThreads, cancelAt, r.nextLong());
    }

    private static long parseKib(String size) {
        return Long.parseLong(size.substring(0, size.length() - 1)) * KIB;
    }

    static String size(long bytes) {
        return bytes % MIB == 0 ? bytes / MIB + "m" : bytes / KIB + "k";
    }

    /** The whole case in one line, for the report and a failure message. */
    String describe() {
        return allocator.id + " engine " + size(engineBytes) + ", " + writes.size() + " writes"
                + (shrink == null ? "" : ", " + shrink.describe()) + ": "
                + writes.stream().map(WritePlan::describe).collect(Collectors.joining("; "));
    }
}
