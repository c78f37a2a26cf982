package io.paimongov.runtime.internal.spill;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/*
 * The size-tiered bookkeeping of TieredSortBuffer, apart from any I/O so that its arithmetic can be
 * read (and tested) on its own. A spilled run enters tier 0; when a tier holds 2 x fanIn runs, its
 * oldest fanIn are merged into one run of the next tier. A run of tier t therefore holds about
 * fanIn^t buffers' worth of rows, so runs are only ever merged with runs of similar size, and a row
 * is rewritten once per tier it climbs: at most log_fanIn(spills) times.
 *
 * Why 2 x fanIn and not fanIn: the final read merges up to fanIn runs itself, so a merge is only
 * worth doing when there will be more runs than that. Merging a tier as soon as it holds fanIn runs
 * rewrites every row once even when the spill made just fanIn + 1 runs; waiting until 2 x fanIn
 * leaves the choice to the final read, which merges only the smallest runs it must (a write that
 * spills R runs with fanIn <= R < 2 x fanIn rewrites about (R - fanIn) / fanIn of its rows, not all
 * of them). A tier holds at most 2 x fanIn - 1 runs, so the runs on disk stay bounded by that times
 * the number of tiers. Paimon's own external sort
 * buffer instead merges every run (the big merged one included) whenever their count reaches the
 * fan-in, which rewrites all earlier spill data again at every merge: quadratic in the input when
 * the fan-in is small.
 *
 * Runs a writer spilled early (a preempted, half-full buffer) are smaller than a full buffer but
 * still enter tier 0: tiers count merges, not bytes, which keeps the bound above exact for every
 * row whatever the run sizes.
 */
/**
 * Runs by tier, and which runs to merge next. Not thread-safe: owned by one {@link
 * TieredSortBuffer}.
 *
 * @param <R> the run (a spill channel with its size); the tiers never look inside it
 */
final class SpillTiers<R> {

    /** A run and the tier it sits in. */
    record Entry<R>(R run, int tier, long bytes) {}

    private final int fanIn;
    private final List<List<Entry<R>>> tiers = new ArrayList<>();

    SpillTiers(int fanIn) {
        if (fanIn < 2) {
            throw new IllegalArgumentException("fan-in must be at least 2: " + fanIn);
        }
        this.fanIn = fanIn;
    }

    /** Adds {@code run} of {@code bytes} to {@code tier}. */
    void add(R run, int tier, long bytes) {
        while (tiers.size() <= tier) {
            tiers.add(new ArrayList<>());
        }
        tiers.get(tier).add(new Entry<>(run, tier, bytes));
    }

    /**
     * The oldest {@code fanIn} runs of the lowest tier that holds {@code 2 x fanIn} runs, taken out
     * of the tiers; empty when no tier is full. The caller merges them and {@link #add adds} the
     * result one tier up.
     */
    List<Entry<R>> takeFullTier() {
        for (List<Entry<R>> tier : tiers) {
            if (tier.size() >= 2 * fanIn) {
                List<Entry<R>> taken = new ArrayList<>(tier.subList(0, fanIn));
                tier.subList(0, fanIn).clear();
                return taken;
            }
        }
        return List.of();
    }

    /**
     * The smallest runs to merge so that at most {@code target} runs are left after the merge
     * (at least 1), taken out of the tiers; empty when there are at most {@code target} already.
     * Never more than {@code fanIn} runs: the caller calls again until empty.
     */
    List<Entry<R>> takeSmallestDownTo(int target) {
        int count = size();
        int keep = Math.max(1, target);
        if (count <= keep) {
            return List.of();
        }
        int k = Math.min(fanIn, count - keep + 1);
        List<Entry<R>> all = new ArrayList<>();
        tiers.forEach(all::addAll);
        all.sort(Comparator.comparingLong((Entry<R> e) -> e.bytes()).thenComparingInt(Entry::tier));
        List<Entry<R>> taken = new ArrayList<>(all.subList(0, k));
        for (Entry<R> e : taken) {
            tiers.get(e.tier()).remove(e);
        }
        return taken;
    }

    /** The tier a merge of {@code inputs} goes to: one above the highest input. */
    static int tierAbove(List<? extends Entry<?>> inputs) {
        return inputs.stream().mapToInt(Entry::tier).max().orElse(-1) + 1;
    }

    /** Every run, lowest tier first. */
    List<R> runs() {
        List<R> runs = new ArrayList<>();
        tiers.forEach(t -> t.forEach(e -> runs.add(e.run())));
        return runs;
    }

    int size() {
        return tiers.stream().mapToInt(List::size).sum();
    }

    void clear() {
        tiers.clear();
    }
}
