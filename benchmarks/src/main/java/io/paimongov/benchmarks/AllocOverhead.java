package io.paimongov.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * P7, the allocator overhead: for each provider (heap, offheap, flink and spark; {@value
 * PagePair#PAGE_SIZE}-byte pages, or the size an engine fixes: Flink's 32 KiB), the time of one
 * page taken and given back through the provider divided by the time of the engine's own call for
 * the same page ({@link PagePair}). The goal is at most 1.1: a governed page should cost the
 * engine little more than its own.
 *
 * <p>How it measures. All four pairs are opened first, each on its own standalone engine. Warm-up
 * runs every side in turn until the JIT has compiled them all and the heap has been used through
 * once (see {@link #warmUp}), and sizes each side's batch so that it takes about {@link
 * Plan#batchNanos()}. Then each round times one batch of each side of each
 * provider, one right after the other; the providers' order rotates from round to round and which
 * side goes first alternates, so that the machine's noise (other builds, GC, frequency changes)
 * falls on both sides alike. The ratio reported is the median of the per-round ratios of the two
 * adjacent batches; the times are the medians of each side's batches, in ns per page. Every result
 * is stored in a ring of slots that outlives the loop, so the JIT cannot drop the work.
 *
 * <p>{@link #measure(Size) measure(QUICK)} takes 10 to 20 s, {@code measure(FULL)} about a
 * minute. Nothing here asserts a time: the numbers are reported, and a noisy machine shows in
 * them. <b>Thread-safety:</b> runs on the calling thread; one measurement at a time per JVM is
 * advisable (two would compete for the same cores). <b>May throw:</b> what {@link PagePair#open}
 * throws, e.g. {@link IllegalStateException} naming the JVM flag an engine needs; {@link
 * IllegalStateException} when a provider leaked a page.
 */
public final class AllocOverhead {

    /**
     * How long to warm up and how to measure.
     *
     * @param warmupNanos the least warm-up
     * @param warmupCapNanos the most warm-up, when the heap has not been collected twice by then
     * @param rounds rounds measured
     * @param batchNanos about how long one batch of one side takes; also the warm-up slice
     */
    record Plan(long warmupNanos, long warmupCapNanos, int rounds, long batchNanos) {
        Plan {
            if (warmupNanos <= 0 || warmupCapNanos < warmupNanos || rounds < 1 || batchNanos <= 0) {
                throw new IllegalArgumentException("warm-up, its cap, rounds and batch time must be positive, the cap"
                        + " at least the warm-up");
            }
        }
    }

    /** About 10 to 20 s for all four providers. */
    static final Plan QUICK = new Plan(seconds(2), seconds(12), 15, millis(25));

    /** About a minute for all four providers. */
    static final Plan FULL = new Plan(seconds(8), seconds(30), 41, millis(100));

    private static final int SETTLING_COLLECTIONS = 2;
    private static final int SINK_SLOTS = 16;

    /**
     * What one measurement found; every map is keyed by provider name in {@link PagePair#PROVIDERS}
     * order.
     *
     * @param ratios provider time / engine time, the median of the per-round ratios; the goal is at
     *     most 1.1
     * @param providerNanos nanoseconds per page through the provider, median over the rounds
     * @param engineNanos nanoseconds per page through the engine's own call, median over the rounds
     * @param rounds rounds measured
     * @param elapsedMillis the whole measurement, engines' start-up and warm-up included
     */
    public record Result(
            Map<String, Double> ratios,
            Map<String, Double> providerNanos,
            Map<String, Double> engineNanos,
            int rounds,
            long elapsedMillis) {

        public Result {
            ratios = Collections.unmodifiableMap(new LinkedHashMap<>(ratios));
            providerNanos = Collections.unmodifiableMap(new LinkedHashMap<>(providerNanos));
            engineNanos = Collections.unmodifiableMap(new LinkedHashMap<>(engineNanos));
        }
    }

    private static long seconds(long n) {
        return TimeUnit.SECONDS.toNanos(n);
    }

    private static long millis(long n) {
        return TimeUnit.MILLISECONDS.toNanos(n);
    }

    private final Object[] sink = new Object[SINK_SLOTS];

    private AllocOverhead() {}

    /** How long a measurement runs. */
    public enum Size {
        /** A second or so: only for tests of the code around it; the ratios mean little. */
        TINY(new Plan(millis(40), millis(40), 3, millis(2))),
        /** 10 to 20 s in all. */
        QUICK(AllocOverhead.QUICK),
        /** About a minute in all. */
        FULL(AllocOverhead.FULL);

        private final Plan plan;

        Size(Plan plan) {
            this.plan = plan;
        }
    }

    /** Measures all four providers; runs in the caller's JVM, which needs the flags docs/jmh.md lists. */
    public static Result measure(Size size) {
        return measure(size.plan);
    }

    static Result measure(Plan plan) {
        long start = System.nanoTime();
        List<PagePair> pairs = new ArrayList<>();
        try {
            for (String provider : PagePair.PROVIDERS) {
                pairs.add(PagePair.open(provider));
            }
            Result result = new AllocOverhead().run(pairs, plan, start);
            closeAll(pairs, null);
            return result;
        } catch (RuntimeException | Error e) {
            closeAll(pairs, e);
            throw e;
        }
    }

    private Result run(List<PagePair> pairs, Plan plan, long start) {
        List<Samples> samples = warmUp(pairs, plan);
        for (int round = 0; round < plan.rounds(); round++) {
            for (int i = 0; i < samples.size(); i++) {
                Samples s = samples.get((i + round) % samples.size());
                boolean providerFirst = (round + i) % 2 == 0;
                double first = nanosPerPage(s.pair, providerFirst, providerFirst ? s.providerBatch : s.engineBatch);
                double second = nanosPerPage(s.pair, !providerFirst, providerFirst ? s.engineBatch : s.providerBatch);
                s.add(providerFirst ? first : second, providerFirst ? second : first);
            }
        }
        Map<String, Double> ratios = new LinkedHashMap<>();
        Map<String, Double> providerNanos = new LinkedHashMap<>();
        Map<String, Double> engineNanos = new LinkedHashMap<>();
        for (Samples s : samples) {
            ratios.put(s.pair.provider(), median(s.ratios));
            providerNanos.put(s.pair.provider(), median(s.providerNanos));
            engineNanos.put(s.pair.provider(), median(s.engineNanos));
        }
        return new Result(ratios, providerNanos, engineNanos, plan.rounds(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /**
     * Runs every side of every pair in slices of {@link Plan#batchNanos()}, in turn, for at least
     * {@link Plan#warmupNanos()} and until the heap was collected {@value #SETTLING_COLLECTIONS}
     * times (at most {@link Plan#warmupCapNanos()}): the JIT compiles every call, and the heap's
     * young generation has been used once through. On a fresh JVM the first pass through it pays a
     * page fault per 4 KiB of heap, which made a {@code byte[]} page 20 to 50 times slower here than
     * in a warm JVM, where an engine runs. Each side's batch is sized from its last slice.
     */
    private List<Samples> warmUp(List<PagePair> pairs, Plan plan) {
        long start = System.nanoTime();
        long collections = collections();
        long[] pages = new long[pairs.size() * 2];
        long[] nanos = new long[pairs.size() * 2];
        long elapsed;
        do {
            for (int i = 0; i < pages.length; i++) {
                long[] ran = runFor(pairs.get(i / 2), i % 2 == 0, plan.batchNanos());
                pages[i] = ran[0];
                nanos[i] = ran[1];
            }
            elapsed = System.nanoTime() - start;
        } while (elapsed < plan.warmupNanos()
                || elapsed < plan.warmupCapNanos() && collections() - collections < SETTLING_COLLECTIONS);
        List<Samples> samples = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            samples.add(new Samples(pairs.get(p), batch(pages[2 * p], nanos[2 * p], plan), batch(pages[2 * p + 1], nanos[2 * p + 1], plan)));
        }
        return samples;
    }

    private static int batch(long pages, long nanos, Plan plan) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, pages * plan.batchNanos() / Math.max(1, nanos)));
    }

    /** Collections of every collector of this JVM so far. */
    private static long collections() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }

    /** Pages for at least {@code nanos}; returns {pages, elapsed nanos}. */
    private long[] runFor(PagePair pair, boolean provider, long nanos) {
        long start = System.nanoTime();
        long pages = 0;
        long elapsed;
        do {
            pages += run(pair, provider, 16);
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
        return new long[] {pages, elapsed};
    }

    private double nanosPerPage(PagePair pair, boolean provider, int pages) {
        long start = System.nanoTime();
        run(pair, provider, pages);
        return (double) (System.nanoTime() - start) / pages;
    }

    /** Two loops rather than one with a branch, so each side's loop is compiled for its call alone. */
    private int run(PagePair pair, boolean provider, int pages) {
        Object[] slots = sink;
        if (provider) {
            for (int i = 0; i < pages; i++) {
                slots[i & (SINK_SLOTS - 1)] = pair.providerPage();
            }
        } else {
            for (int i = 0; i < pages; i++) {
                slots[i & (SINK_SLOTS - 1)] = pair.enginePage();
            }
        }
        return pages;
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static void closeAll(List<PagePair> pairs, Throwable failure) {
        RuntimeException first = null;
        for (PagePair pair : pairs) {
            try {
                pair.close();
            } catch (RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** One provider's batches and what the rounds measured. Used on the measuring thread only. */
    private static final class Samples {
        final PagePair pair;
        final int providerBatch;
        final int engineBatch;
        final List<Double> providerNanos = new ArrayList<>();
        final List<Double> engineNanos = new ArrayList<>();
        final List<Double> ratios = new ArrayList<>();

        Samples(PagePair pair, int providerBatch, int engineBatch) {
            this.pair = pair;
            this.providerBatch = providerBatch;
            this.engineBatch = engineBatch;
        }

        void add(double provider, double engine) {
            providerNanos.add(provider);
            engineNanos.add(engine);
            ratios.add(provider / engine);
        }
    }
}
