package io.paimongov.benchmarks.jmh;

import io.paimongov.benchmarks.PagePair;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One 64 KiB page taken and given straight back, through each provider ({@link #providerPage}) and
 * through its engine's own call ({@link #enginePage}): {@code new byte[]} for heap, an Arrow buffer
 * from the engine's {@code BufferAllocator} for offheap, {@code MemoryManager.allocatePages} for
 * flink, a Spark {@code MemoryConsumer}'s {@code acquireMemory} plus its {@code byte[]} for spark.
 * Both sides run on the provider's standalone engine and the provider side is the call the runtime's
 * page pool makes ({@link PagePair}); divide the two scores of one provider for its overhead, the
 * number {@code AllocOverhead} (P7) measures with alternating rounds. The third side, the page
 * through the runtime's page pool over the provider, is the runtime's own JMH benchmark ({@code
 * io.paimongov.runtime.internal.memory.PoolPageBenchmark}, in its test tree as it measures internal
 * classes), which {@code benchmarks/jmh} runs next to this one on the same engines.
 *
 * <p>Average time per page, in nanoseconds. Each trial opens a fresh engine and closes it after,
 * with the provider's leak check.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    ForkFlags.HEAP, ForkFlags.HEAP_START, ForkFlags.PRE_TOUCH, ForkFlags.IGNORE_UNRECOGNIZED, ForkFlags.NIO, ForkFlags.LANG, ForkFlags.INVOKE, ForkFlags.REFLECT,
    ForkFlags.IO, ForkFlags.NET, ForkFlags.UTIL, ForkFlags.CONCURRENT, ForkFlags.ATOMIC, ForkFlags.REF, ForkFlags.NIO_CH,
    ForkFlags.NIO_CS, ForkFlags.ACTION, ForkFlags.CALENDAR, ForkFlags.METHOD_HANDLE, ForkFlags.NETTY
})
public class PageBenchmark {

    /** The provider, and so the engine, of this trial. */
    @Param({"heap", "offheap", "flink", "spark"})
    public String provider;

    private PagePair pair;

    @Setup(Level.Trial)
    public void open() {
        pair = PagePair.open(provider);
    }

    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }

    /** A page through the provider's {@code SegmentAllocator}: allocate one, release it. */
    @Benchmark
    public Object providerPage() {
        return pair.providerPage();
    }

    /** A page through the engine's own call. */
    @Benchmark
    public Object enginePage() {
        return pair.enginePage();
    }
}
