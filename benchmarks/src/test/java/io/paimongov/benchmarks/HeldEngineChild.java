package io.paimongov.benchmarks;

import io.paimongov.runtime.Providers;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * A child JVM for {@link CounterSamplerTest}, started with {@link NativeMemory#FLAG}: {@code
 * PROVIDER HELD_BYTES MODE DIR}. It opens provider {@code PROVIDER}'s standalone engine (twice the
 * held size), takes its baseline of native memory and the engine's counter, starts a {@link
 * CounterSampler} on the engine's counter, then takes {@code HELD_BYTES} through the engine's own
 * call (no provider, no runtime): an Arrow buffer from the engine's allocator, Flink pages from its
 * {@code MemoryManager}, Spark execution memory for a consumer of its task. In mode {@code held} it
 * holds them until the sampler's thread has read twice after they were all taken; in mode {@code
 * brief} it waits for the thread's first read before taking them and gives them back at once, so
 * that only a peak kept outside the sampler's reads (NMT's own, the engine's own) can show them.
 * It prints {@code HELD engine=E native=N own=O samples=S}: the sampler's peaks above the
 * baselines, the engine's own peak ({@link ProviderBoundChild#ownPeak}) and the reads.
 */
public final class HeldEngineChild {

    public static void main(String[] args) throws Exception {
        String provider = args[0];
        long held = Long.parseLong(args[1]);
        boolean brief = args[2].equals("brief");
        StandaloneEngine engine = Providers.load(provider, HeldEngineChild.class.getClassLoader())
                .standalone(2 * held, Path.of(args[3])).orElseThrow();
        long nativeBase = NativeMemory.read().committedBytes();
        long engineBase = engine.engineUsedBytes();
        CounterSampler sampler = new CounterSampler(brief ? 3_600_000 : 5, engine::engineUsedBytes);
        sampler.start();
        if (brief) {
            awaitSamples(sampler, 2);
        }
        Runnable giveBack = take(provider, engine, held);
        if (!brief) {
            awaitSamples(sampler, sampler.samples() + 2);
        }
        giveBack.run();
        sampler.stop();
        long own = ProviderBoundChild.ownPeak(engine.environment());
        engine.close();
        System.out.println("HELD engine=" + (sampler.enginePeakBytes() - engineBase) + " native=" + (sampler.nativePeakBytes() - nativeBase)
                + " own=" + own + " samples=" + sampler.samples());
        System.exit(0);
    }

    private static void awaitSamples(CounterSampler sampler, int samples) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (sampler.samples() < samples) {
            if (System.nanoTime() > deadline) {
                System.out.println("NOT_SAMPLED the sampler did not read in 60 s");
                System.exit(1);
            }
            Thread.sleep(1);
        }
    }

    /** Takes {@code bytes} through the engine's own call; returns how to give them back. */
    private static Runnable take(String provider, StandaloneEngine engine, long bytes) throws Exception {
        switch (provider) {
            case "offheap" -> {
                ArrowBuf buf = engine.environment().require(BufferAllocator.class, provider).buffer(bytes);
                buf.setZero(0, bytes);
                return buf::close;
            }
            case "flink" -> {
                MemoryManager manager = engine.environment().require(MemoryManager.class, provider);
                List<MemorySegment> pages = new ArrayList<>();
                Object owner = new Object();
                manager.allocatePages(owner, pages, (int) (bytes / manager.getPageSize()));
                return () -> manager.release(pages);
            }
            case "spark" -> {
                TaskMemoryManager tmm = engine.environment().require(TaskMemoryManager.class, provider);
                MemoryConsumer consumer = new MemoryConsumer(tmm, bytes, MemoryMode.ON_HEAP) {
                    @Override
                    public long spill(long size, MemoryConsumer trigger) {
                        return 0;
                    }
                };
                long granted = consumer.acquireMemory(bytes);
                if (granted != bytes) {
                    throw new IllegalStateException("Spark granted " + granted + " of " + bytes);
                }
                return () -> consumer.freeMemory(granted);
            }
            default -> throw new IllegalArgumentException("unknown provider " + provider);
        }
    }
}
