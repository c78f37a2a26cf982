package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.spill.TieredSortBuffer;
import java.util.List;

/**
 * The spill channels a governed write plans: how many a sort may merge at once (its fan-in, the
 * table's {@code local-sort.max-num-file-handles}) and what heap each open channel keeps outside
 * pages, for Paimon's sort buffer and for the runtime's tiered one at each of its compression
 * blocks. {@link WriteFootprint#plan} reserves from these; the shared sort sizes its merges with
 * them. The byte figures are the measured {@code spill-channel} stage of {@link
 * MeasuredFootprints}.
 *
 * <p>Stateless; thread-safe.
 */
public final class SpillChannels {

    /**
     * The tiered buffer's compression blocks, smallest first: {@link #tieredFormat} names the
     * measured channel of each (the calibration measures them all).
     */
    public static final List<Integer> TIERED_BLOCKS = List.of(TieredSortBuffer.SMALL_BLOCK, TieredSortBuffer.LARGE_BLOCK);

    /**
     * The smallest sort fan-in planned. Paimon's external sort buffer merges all its runs whenever
     * their count reaches the fan-in, so a small fan-in rewrites earlier runs again at every merge
     * (quadratic). A larger floor does not help at small budgets: each channel is reserved, so the
     * write buffer shrinks and spills more often (measured in docs/log/performance-p4-spill.md: a floor of 4
     * at a 1.68 MB budget made 30,000 spill files out of 315). The fix is tiered merging ({@code
     * TieredSortBuffer}), not a larger floor.
     */
    static final int MIN_SPILL_FAN_IN = 2;
    /**
     * The tiered buffer's fan-in floor: with size tiers a row is rewritten about log_F(runs) times,
     * so F = 4 halves the rewriting of F = 2, and its five 4 KiB-block channels cost less than
     * one of Paimon's.
     */
    static final int MIN_TIERED_FAN_IN = 4;
    /**
     * Past this fan-in of 4 KiB blocks the tiers save little more rewriting: a budget large enough
     * to reach it (16 MiB and more) spills runs large enough that 128 of them hold gigabytes. Larger
     * blocks get proportionally fewer ({@link #maxTieredFanIn}), so that the channels a write
     * reserves and seldom fills do not grow with the block.
     */
    static final int MAX_TIERED_FAN_IN = 128;
    /**
     * The tiered buffer's channels may take this share of the budget: at a spill budget of 5% of the
     * input, runs are about 1/20 of a writer's rows, so a final read that merges them all at once
     * needs about 20 to 40 channels, and an eighth of 3 MiB holds 38 (the write buffer loses an
     * eighth of its pages, which makes runs an eighth more).
     */
    static final int TIERED_CHANNEL_SHARE = 8;
    /**
     * The tiered buffers spill in {@link TieredSortBuffer#LARGE_BLOCK} blocks when their fan-in at
     * that block is at least this, else in {@link TieredSortBuffer#SMALL_BLOCK} ones. In the spill
     * series (8 writers, 1,310,720 rows, 125.8 MB; docs/log/performance-scale.md, Spill throughput) the
     * 8 KiB block at 6 MiB (fan-in 45) wrote as much spill as 4 KiB (0.56 of the input) in 10 to 20%
     * less time; at 3 MiB (fan-in 22) it wrote 0.82 of the input against 0.65 and was no faster.
     */
    static final int LARGE_BLOCK_MIN_FAN_IN = 32;

    private SpillChannels() {}

    /**
     * Heap one open spill channel of Paimon's sort buffer keeps outside pages (two 64 KiB
     * compression blocks and the codec's state, whatever the page size): the measured {@code
     * spill-channel} stage, format {@code sort}, of {@link MeasuredFootprints}. A merge opens
     * fan-in readers and one writer.
     */
    public static long sortChannelBytes(int pageSize) {
        return MeasuredFootprints.get().bytes("spill", "sort", "spill-channel", pageSize);
    }

    /**
     * The same for the runtime's {@link TieredSortBuffer} at {@code block}: format {@link
     * #tieredFormat tieredFormat(block)} of {@link MeasuredFootprints}.
     */
    public static long tieredChannelBytes(int pageSize, int block) {
        return MeasuredFootprints.get().bytes("spill", tieredFormat(block), "spill-channel", pageSize);
    }

    /**
     * The tiered buffers' compression block under {@code budgetBytes}: {@link
     * TieredSortBuffer#LARGE_BLOCK} when an eighth of the budget holds at least {@value
     * #LARGE_BLOCK_MIN_FAN_IN} of its channels, else {@link TieredSortBuffer#SMALL_BLOCK}.
     */
    public static int tieredBlock(long budgetBytes, int pageSize) {
        long fan = budgetBytes / TIERED_CHANNEL_SHARE / tieredChannelBytes(pageSize, TieredSortBuffer.LARGE_BLOCK);
        return fan >= LARGE_BLOCK_MIN_FAN_IN ? TieredSortBuffer.LARGE_BLOCK : TieredSortBuffer.SMALL_BLOCK;
    }

    /**
     * The largest fan-in planned for tiered buffers of {@code block}: {@value #MAX_TIERED_FAN_IN}
     * channels of {@link TieredSortBuffer#SMALL_BLOCK}, as many bytes of blocks at others (64 at 8
     * KiB). Budgets that reach it never fill those channels in the scale grid (64 MiB, no spill),
     * where 128 channels of 8 KiB blocks held 1 MB more than of 4 KiB and moved the heap drift of
     * the 2,048-writer dynamic-bucket cells from -0.14 to -0.18.
     */
    static int maxTieredFanIn(int block) {
        return (int) ((long) MAX_TIERED_FAN_IN * TieredSortBuffer.SMALL_BLOCK / block);
    }

    /**
     * The footprint table's format name for the tiered buffer's spill channels at {@code block}:
     * {@code tiered} for {@link TieredSortBuffer#SMALL_BLOCK}, {@code tiered-8k} for {@link
     * TieredSortBuffer#LARGE_BLOCK}.
     *
     * @throws IllegalArgumentException for another block
     */
    public static String tieredFormat(int block) {
        return switch (block) {
            case TieredSortBuffer.SMALL_BLOCK -> "tiered";
            case TieredSortBuffer.LARGE_BLOCK -> "tiered-8k";
            default -> throw new IllegalArgumentException("no measured spill channel for a " + block + "-byte block");
        };
    }
}
