package io.paimongov.heap;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ProviderOptions;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

/**
 * Compaction made observable and, on demand, slow, from outside the runtime: the heap provider
 * whose compaction threads are made by a factory that remembers them, and a table whose FileIO
 * runs a hook on such a thread whenever it opens a data file ({@code data-*}) for reading or
 * writing, that is, inside a running compaction task. The hook may sleep (a task that writes its
 * output file first sleeps {@link #outputDelayMillis}), and may look at the write's memory while
 * the task holds its charge.
 *
 * <p>Thread-safety: thread-safe; hooks run on compaction threads.
 */
final class SlowCompactions {

    /** What the hook is told: the thread opens a data file for writing or for reading. */
    interface Hook {
        void onDataFile(boolean output) throws InterruptedException;
    }

    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger made = new AtomicInteger();
    private volatile long outputDelayMillis;
    private volatile Hook hook = output -> {};

    /** From now on a compaction task sleeps this long before it creates each output data file. */
    void delayOutput(long millis) {
        this.outputDelayMillis = millis;
    }

    void hook(Hook hook) {
        this.hook = hook;
    }

    /** Opens a context of the heap provider whose compaction threads this class knows. */
    ResourceContext open(Path spill, String budget, String... more) throws IOException {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, budget);
        values.put(GovernanceOptions.SPILL_DIRS, Files.createDirectories(spill).toString());
        values.put("governance.memory.page-size", "16k");
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        return ResourceContext.open("streaming", provider(), GovernanceOptions.of(values), EngineEnvironment.standalone());
    }

    /** {@code table} with a FileIO that runs the hook on compaction threads. */
    FileStoreTable table(FileStoreTable table) {
        return FileStoreTableFactory.create(new HookedFileIO(), table.location(), table.schema(), table.catalogEnvironment());
    }

    private GovernanceProvider provider() {
        GovernanceProvider heap = new HeapGovernanceProvider();
        CompactionThreads marked = CompactionThreads.of(task -> {
            Thread t = new Thread(task, "slow-compaction-" + made.incrementAndGet());
            t.setDaemon(true);
            threads.add(t);
            return t;
        }, HeapGovernanceProvider.MAX_COMPACTION_THREADS);
        return new GovernanceProvider() {
            @Override
            public String name() {
                return heap.name();
            }

            @Override
            public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
                EngineResources real = heap.open(options, environment);
                return (EngineResources) Proxy.newProxyInstance(
                        EngineResources.class.getClassLoader(), new Class<?>[] {EngineResources.class}, (proxy, method, args) -> {
                            if (method.getName().equals("compaction") && method.getParameterCount() == 0) {
                                return marked;
                            }
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
    }

    private void onDataFile(org.apache.paimon.fs.Path path, boolean output) throws IOException {
        if (!threads.contains(Thread.currentThread()) || !path.getName().startsWith("data-")) {
            return;
        }
        try {
            long delay = outputDelayMillis;
            if (output && delay > 0) {
                Thread.sleep(delay);
            }
            hook.onDataFile(output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted in the test's compaction hook");
        }
    }

    /** The local file system, with the hook on data files opened by compaction threads. */
    private final class HookedFileIO extends LocalFileIO {
        private static final long serialVersionUID = 1L;

        @Override
        public SeekableInputStream newInputStream(org.apache.paimon.fs.Path path) throws IOException {
            onDataFile(path, false);
            return super.newInputStream(path);
        }

        @Override
        public PositionOutputStream newOutputStream(org.apache.paimon.fs.Path path, boolean overwrite) throws IOException {
            onDataFile(path, true);
            return super.newOutputStream(path, overwrite);
        }
    }
}
