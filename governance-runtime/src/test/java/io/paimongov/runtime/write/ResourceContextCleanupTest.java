package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.allocator.support.PagedResources;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.internal.memory.TestAllocators;
import io.paimongov.runtime.internal.spill.GovernedIOManager;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.ProviderOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.paimon.disk.BufferFileWriter;
import org.apache.paimon.memory.Buffer;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A context's close when a step cannot give back what it holds, with real parts: a spill scope on
 * disk with a file nobody can delete, and a compaction thread that does not stop. Each test checks
 * the typed error, the {@code cleanupFailures} metric, that what was not given back is still
 * counted, and that the other steps ran. The expected numbers come from what the test itself put in
 * (one page of {@link #PAGE} bytes, one spill block of {@link #BLOCK} bytes plus Paimon's 4-byte
 * header), not from the runtime's counters.
 */
class ResourceContextCleanupTest {

    private static final int PAGE = 4096;
    private static final int BLOCK = 1000;

    @TempDir Path dir;

    private PagedAllocator<?> engine;

    private ResourceContext open(String stopTimeout) {
        engine = TestAllocators.paged(PAGE, 1 << 20);
        PagedAllocator<?> memory = engine;
        GovernanceProvider provider = new GovernanceProvider() {
            @Override
            public String name() {
                return "cleanup-test";
            }

            @Override
            public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
                return new PagedResources(memory, SpillLocations.of(List.of(dir), Long.MAX_VALUE),
                        CancellationSignal.never(), MetricsReporter.none(), CompactionThreads.daemons("cleanup-test-", 2));
            }
        };
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                "governance.memory.budget", "1m",
                "governance.memory.page-size", "4k",
                "governance.compaction.stop-timeout", stopTimeout));
        return ResourceContext.open("cleanup", provider, options, EngineEnvironment.standalone());
    }

    /** Writes one spill file of one block through the context's I/O manager; returns its path. */
    private static Path spillOneBlock(ResourceContext context) throws Exception {
        GovernedIOManager io = context.ioManager();
        BufferFileWriter writer = io.createBufferFileWriter(io.createChannel());
        writer.writeBlock(Buffer.create(MemorySegment.wrap(new byte[BLOCK]), BLOCK));
        writer.close();
        return writer.getChannelID().getPathFile().toPath();
    }

    @Test
    void aSpillScopeThatCannotBeDeletedIsReportedAndStaysCountedWhileEverythingElseIsGivenBack() throws Exception {
        ResourceContext context = open("30s");
        MemorySegment page = context.pool().nextSegment();
        assertThat(page).isNotNull();
        Path file = spillOneBlock(context);
        Path scope = context.spillScopeDir();
        try (Undeletable stuck = Undeletable.make(file)) {
            assertThatThrownBy(context::close)
                    .isInstanceOfSatisfying(CleanupException.class, e -> {
                        assertThat(e.failedSteps()).hasSize(1);
                        assertThat(e.failedSteps().get(0))
                                .startsWith("delete the spill scope: ")
                                .contains("cannot delete spill scope " + scope);
                    });
            // What could not be deleted is still counted...
            assertThat(Files.exists(file)).isTrue();
            assertThat(context.ioManager().diskBytes()).isEqualTo(BLOCK + 4);
            assertThat(context.snapshot().spillFilesLeft()).isEqualTo(1);
            assertThat(context.snapshot().cleanupFailures()).isEqualTo(1);
            // ...and the steps after the failed one ran: the page went back to the engine, which closed.
            assertThat(context.snapshot().pageBytes()).isZero();
            assertThat(context.snapshot().reservedBytes()).isZero();
            assertThat(engine.usedBytes()).isZero();
            assertThat(engine.isClosed()).isTrue();
            assertThat(context.isClosed()).isTrue();
        }
        // Once the file can go, the scope can be deleted: nothing else was left in it.
        context.ioManager().close();
        assertThat(Files.exists(scope)).isFalse();
        assertThat(context.ioManager().diskBytes()).isZero();
    }

    /**
     * A compaction task that ignores the interrupt outlives the stop deadline: the close throws at
     * the deadline, but the page, the spill file and the engine stay held until the thread ends, and
     * are given back then, on that thread.
     */
    @Test
    void aCompactionThreadPastTheDeadlineKeepsThePagesAndTheScopeUntilItEnds() throws Exception {
        int openBefore = ResourceContext.openCount();
        ResourceContext context = open("100ms");
        assertThat(ResourceContext.openCount()).as("open contexts").isEqualTo(openBefore + 1);
        MemorySegment page = context.pool().nextSegment();
        assertThat(page).isNotNull();
        Path file = spillOneBlock(context);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicReference<Thread> compactionThread = new AtomicReference<>();
        context.compactionExecutor().submit(() -> {
            compactionThread.set(Thread.currentThread());
            started.countDown();
            // A compaction stuck where an interrupt does not reach it: it still uses the page.
            while (true) {
                try {
                    letGo.await();
                    page.putInt(0, 42);
                    return null;
                } catch (InterruptedException ignored) {
                    // keeps going, as a task blocked in uninterruptible I/O would
                }
            }
        });
        started.await();

        assertThatThrownBy(context::close)
                .isInstanceOfSatisfying(CleanupException.class, e -> assertThat(e.failedSteps()).singleElement()
                        .asString()
                        .startsWith("stop compaction threads: 1 compaction thread(s) still running 100 ms after they were"
                                + " told to stop")
                        .contains("are kept until they end"));
        assertThat(context.isClosed()).isFalse();
        assertThat(ResourceContext.openCount()).as("a close held up by compaction is still open").isEqualTo(openBefore + 1);
        assertThat(context.snapshot().cleanupFailures()).isEqualTo(1);
        assertThat(context.snapshot().pageBytes()).isEqualTo(PAGE);
        assertThat(context.snapshot().reservedBytes()).isEqualTo(PAGE);
        assertThat(engine.usedBytes()).isEqualTo(PAGE);
        assertThat(engine.isClosed()).isFalse();
        assertThat(Files.exists(file)).isTrue();
        assertThat(context.ioManager().diskBytes()).isEqualTo(BLOCK + 4);

        letGo.countDown();
        compactionThread.get().join();

        assertThat(context.isClosed()).isTrue();
        assertThat(ResourceContext.openCount()).as("open contexts after the thread ended").isEqualTo(openBefore);
        assertThat(engine.usedBytes()).isZero();
        assertThat(engine.isClosed()).isTrue();
        assertThat(Files.exists(context.spillScopeDir())).isFalse();
        assertThat(context.snapshot().pageBytes()).isZero();
        assertThat(context.snapshot().reservedBytes()).isZero();
        assertThat(context.snapshot().cleanupFailures()).isEqualTo(1);
    }

    @Test
    void aCleanCloseReportsNoFailure() throws Exception {
        int openBefore = ResourceContext.openCount();
        ResourceContext context = open("30s");
        assertThat(context.pool().nextSegment()).isNotNull();
        spillOneBlock(context);
        context.close();
        context.close();
        assertThat(ResourceContext.openCount()).as("open contexts after two closes").isEqualTo(openBefore);
        assertThat(context.snapshot().cleanupFailures()).isZero();
        assertThat(engine.usedBytes()).isZero();
        assertThat(Files.exists(context.spillScopeDir())).isFalse();
    }

    /**
     * A context whose write never spills makes no spill scope: opening only checks the root, and
     * neither a close nor a cancel has a directory to delete (SPILL.4, SPILL.5).
     */
    @Test
    void aContextThatNeverSpillsTouchesNoDisk() throws Exception {
        for (boolean cancel : new boolean[] {false, true}) {
            ResourceContext context = open("30s");
            assertThat(context.pool().nextSegment()).isNotNull();
            assertThat(entries()).as("under the spill root of the open context").isEmpty();
            if (cancel) {
                context.cancel("test");
            }
            context.close();
            assertThat(entries()).as("under the spill root after the close").isEmpty();
            assertThat(context.snapshot().cleanupFailures()).isZero();
            assertThat(engine.usedBytes()).isZero();
        }
    }

    private List<Path> entries() throws Exception {
        try (Stream<Path> children = Files.list(dir)) {
            return children.toList();
        }
    }
}
