package io.paimongov.tck;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * Random page and byte requests from several threads on several writes' allocators that share one
 * standalone engine (the provider's own engine: its pool, allocator or memory manager) smaller than
 * the writes' budgets together. A sampler thread reads the engine's own counter and every
 * allocator's {@code usedBytes()} throughout; each page carries its owner's stamp, checked before
 * it is released (no page is handed out twice). Everything is given back at the end and the engine
 * counts zero.
 *
 * <p>Not one of the kit's rules (it needs no Paimon table and runs only with a standalone engine);
 * a stress run an allocator's own tests call, with {@code governance.reliability.ops} operations in
 * this project's reliability suite.
 *
 * <p><b>Thread-safety:</b> {@link #run} may be called from any thread; each call is independent.
 * <b>May throw:</b> {@link AssertionError} naming what was seen and the seed.
 */
public final class SharedEngineStress {

    static final int PAGE = 64 << 10;
    static final int WRITES = 3;
    static final int THREADS = 4;

    /** What one run saw. */
    public record Result(long seed, long ops, long refused, long samples, long peakEngine, long violations, long aliased) {}

    private SharedEngineStress() {}

    /**
     * Runs {@code ops} random requests (pages of 1 to 4, byte reservations) from {@value #THREADS}
     * threads on {@value #WRITES} writes' allocators of {@code provider}, each with a budget of 32
     * pages, on one standalone engine of 48 pages under {@code dir}.
     *
     * @throws AssertionError when a sample saw an engine or allocator over its capacity, a page was
     *     handed out twice, memory was still held at the end, or the engine never ran short
     * @throws IllegalArgumentException when the provider has no standalone engine
     */
    public static Result run(GovernanceProvider provider, Path dir, int ops) throws Exception {
        long seed = System.nanoTime();
        long engineBytes = 48L * PAGE;
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, Long.toString(32L * PAGE),
                GovernanceOptions.PAGE_SIZE, Integer.toString(PAGE),
                GovernanceOptions.SPILL_DIRS, dir.toString()));
        StandaloneEngine standalone = provider.standalone(engineBytes, dir)
                .orElseThrow(() -> new IllegalArgumentException("provider '" + provider.name() + "' has no standalone engine"));
        try (StandaloneEngine engine = standalone) {
            List<EngineResources> writes = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                writes.add(provider.open(options.providerOptions(), engine.environment()));
            }
            AtomicLong violations = new AtomicLong();
            AtomicLong samples = new AtomicLong();
            AtomicLong peak = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            AtomicLong aliased = new AtomicLong();
            AtomicBoolean running = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (running.get()) {
                    long used = engine.engineUsedBytes();
                    peak.accumulateAndGet(used, Math::max);
                    if (used > engineBytes) {
                        violations.incrementAndGet();
                    }
                    for (EngineResources w : writes) {
                        if (w.memory().usedBytes() > w.memory().capacityBytes()) {
                            violations.incrementAndGet();
                        }
                    }
                    samples.incrementAndGet();
                    Thread.yield();
                }
            }, "engine-sampler");
            sampler.start();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            try {
                for (int t = 0; t < THREADS; t++) {
                    SegmentAllocator memory = writes.get(t % WRITES).memory();
                    Random random = new Random(seed + t);
                    long stamp = (long) (t + 1) << 40;
                    done.add(pool.submit(() -> {
                        start.await();
                        work(memory, random, stamp, ops / THREADS, refused, aliased);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get(10, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
                running.set(false);
                sampler.join();
            }
            for (EngineResources w : writes) {
                check(w.memory().usedBytes() == 0, "an allocator still holds " + w.memory().usedBytes() + " bytes at the end, seed " + seed);
            }
            check(engine.engineUsedBytes() == 0, "the engine counts " + engine.engineUsedBytes() + " bytes at the end, seed " + seed);
            for (EngineResources w : writes) {
                w.close();
            }
            Result result = new Result(seed, ops, refused.get(), samples.get(), peak.get(), violations.get(), aliased.get());
            System.out.println(provider.name() + " shared-engine stress: " + result);
            check(result.violations() == 0, result.violations() + " samples over a capacity, seed " + seed);
            check(result.aliased() == 0, result.aliased() + " pages handed out twice, seed " + seed);
            check(result.samples() > 0, "the sampler took no sample");
            check(result.refused() > 0, "the engine never ran short, so the run proved nothing; seed " + seed);
            return result;
        }
    }

    private static void check(boolean holds, String seen) {
        if (!holds) {
            throw new AssertionError("[shared-engine stress] " + seen);
        }
    }

    private static void work(
            SegmentAllocator memory, Random random, long stamp, int ops, AtomicLong refused, AtomicLong aliased) {
        List<List<MemorySegment>> pages = new ArrayList<>();
        List<Long> reserved = new ArrayList<>();
        long next = stamp;
        // The allocator's page size: an engine may fix its own (ALLOC.1).
        int last = memory.pageSize() - 8;
        for (int i = 0; i < ops; i++) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    List<MemorySegment> got = new ArrayList<>();
                    try {
                        memory.allocate(got, 1 + random.nextInt(4));
                        for (MemorySegment page : got) {
                            page.putLong(0, next);
                            page.putLong(last, next++);
                        }
                        pages.add(got);
                    } catch (ResourceExhaustedException e) {
                        refused.incrementAndGet();
                        if (!got.isEmpty()) {
                            aliased.incrementAndGet();
                        }
                    }
                }
                case 1 -> {
                    if (!pages.isEmpty()) {
                        List<MemorySegment> batch = pages.remove(random.nextInt(pages.size()));
                        for (MemorySegment page : batch) {
                            if (page.getLong(0) != page.getLong(last) || (page.getLong(0) & ~((1L << 40) - 1)) != stamp) {
                                aliased.incrementAndGet();
                            }
                        }
                        memory.release(batch);
                    }
                }
                case 2 -> {
                    long bytes = 1 + random.nextInt(3 * PAGE);
                    if (memory.tryReserve(bytes)) {
                        reserved.add(bytes);
                    } else {
                        refused.incrementAndGet();
                    }
                }
                default -> {
                    if (!reserved.isEmpty()) {
                        memory.release(reserved.remove(random.nextInt(reserved.size())));
                    }
                }
            }
        }
        pages.forEach(memory::release);
        reserved.forEach(memory::release);
    }
}
