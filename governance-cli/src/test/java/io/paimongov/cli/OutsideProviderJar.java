package io.paimongov.cli;

import io.paimongov.spi.GovernanceProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.paimon.memory.MemorySegment;

/**
 * A vendor's allocator from outside this repository, the way a vendor hands it to {@code tck
 * --classpath}: Java source written against the SPI alone, compiled here at test time and packed
 * with its {@code META-INF/services} entry into a jar. Nothing of this project's test code is in
 * the jar, so the CLI can only find the providers through the vendor class path.
 *
 * <p>Three providers: {@value #CORRECT} (heap pages under a bounded counter), {@value #BROKEN}
 * (the same, except that it never refuses: {@code fits} ignores the budget) and {@value #BLOCKING}
 * (the same, except that {@code allocate} never returns and ignores interrupts; it creates the file
 * the system property {@value #BLOCKED_MARKER} names, if set, when it starts to block).
 */
final class OutsideProviderJar {

    static final String CORRECT = "outside-counting";
    static final String BROKEN = "outside-unbounded";
    static final String BLOCKING = "outside-blocking";
    /**
     * The system property naming a file that {@value #BLOCKING} creates when a call of {@code
     * allocate} starts to block: a test waits for it to know the kit is stuck in the provider.
     */
    static final String BLOCKED_MARKER = "outside.blocked-marker";

    private static final String SOURCE = """
            package com.example.outside;

            import io.paimongov.spi.CancellationSignal;
            import io.paimongov.spi.EngineResources.CompactionThreads;
            import io.paimongov.spi.EngineEnvironment;
            import io.paimongov.spi.EngineResources;
            import io.paimongov.spi.GovernanceClosedException;
            import io.paimongov.spi.GovernanceProvider;
            import io.paimongov.spi.MetricsReporter;
            import io.paimongov.spi.ProviderOptions;
            import io.paimongov.spi.ResourceExhaustedException;
            import io.paimongov.spi.SegmentAllocator;
            import io.paimongov.spi.EngineResources.SpillLocations;
            import java.util.Collection;
            import java.util.Collections;
            import java.util.IdentityHashMap;
            import java.util.List;
            import java.util.Set;
            import org.apache.paimon.memory.MemorySegment;

            public class CountingProvider implements GovernanceProvider {

                public String name() {
                    return "%s";
                }

                boolean fits(long used, long bytes, long capacity) {
                    return used + bytes <= capacity;
                }

                void beforeAllocate() {}

                public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
                    Pages pages = new Pages(options.pageSize(), options.budgetBytes());
                    SpillLocations spill = SpillLocations.of(options.spillDirs(), options.spillMaxBytes());
                    CompactionThreads threads = CompactionThreads.of(r -> {
                        Thread t = new Thread(r, "outside-compaction");
                        t.setDaemon(true);
                        return t;
                    }, 1);
                    return new EngineResources() {
                        public SegmentAllocator memory() { return pages; }
                        public SpillLocations spill() { return spill; }
                        public CancellationSignal cancellation() { return CancellationSignal.never(); }
                        public MetricsReporter metrics() { return MetricsReporter.none(); }
                        public CompactionThreads compaction() { return threads; }
                        public void close() { pages.close(); }
                    };
                }

                public static final class Blocking extends CountingProvider {
                    public String name() {
                        return "%s";
                    }

                    void beforeAllocate() {
                        String marker = System.getProperty("%s");
                        if (marker != null) {
                            try {
                                java.nio.file.Files.writeString(java.nio.file.Path.of(marker), Thread.currentThread().getName());
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        }
                        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
                        while (true) {
                            try {
                                never.await();
                            } catch (InterruptedException ignored) {
                                // a hung engine does not answer interrupts either
                            }
                        }
                    }
                }

                public static final class Unbounded extends CountingProvider {
                    public String name() {
                        return "%s";
                    }

                    boolean fits(long used, long bytes, long capacity) {
                        return true;
                    }
                }

                final class Pages implements SegmentAllocator {
                    final int pageSize;
                    final long capacity;
                    final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
                    long used;
                    long reserved;
                    boolean closed;

                    Pages(int pageSize, long capacity) {
                        this.pageSize = pageSize;
                        this.capacity = capacity;
                    }

                    public int pageSize() { return pageSize; }
                    public long capacityBytes() { return capacity; }
                    public synchronized long usedBytes() { return used; }

                    public void allocate(List<MemorySegment> target, int pages) {
                        beforeAllocate();
                        take(target, pages);
                    }

                    synchronized void take(List<MemorySegment> target, int pages) {
                        ensureOpen();
                        long bytes = (long) pages * pageSize;
                        if (!fits(used, bytes, capacity)) {
                            throw ResourceExhaustedException.memory("outside pages", bytes, used, capacity);
                        }
                        used += bytes;
                        for (int i = 0; i < pages; i++) {
                            MemorySegment page = MemorySegment.wrap(new byte[pageSize]);
                            live.add(page);
                            target.add(page);
                        }
                    }

                    public synchronized void release(Collection<MemorySegment> pages) {
                        for (MemorySegment page : List.copyOf(pages)) {
                            if (live.remove(page)) {
                                used -= pageSize;
                            }
                        }
                    }

                    public synchronized boolean tryReserve(long bytes) {
                        ensureOpen();
                        if (!fits(used, bytes, capacity)) {
                            return false;
                        }
                        used += bytes;
                        reserved += bytes;
                        return true;
                    }

                    public synchronized void release(long bytes) {
                        long given = Math.min(bytes, reserved);
                        reserved -= given;
                        used -= given;
                    }

                    synchronized void close() {
                        closed = true;
                        used = 0;
                        reserved = 0;
                        live.clear();
                    }

                    private void ensureOpen() {
                        if (closed) {
                            throw new GovernanceClosedException("outside allocator is closed");
                        }
                    }
                }
            }
            """.formatted(CORRECT, BLOCKING, BLOCKED_MARKER, BROKEN);

    private static final String SERVICES = """
            com.example.outside.CountingProvider
            com.example.outside.CountingProvider$Unbounded
            com.example.outside.CountingProvider$Blocking
            """;

    private OutsideProviderJar() {}

    /** Compiles the providers against the SPI (and the Paimon classes it names) and writes {@code dir/outside.jar}. */
    static Path build(Path dir) throws IOException, URISyntaxException {
        Path sources = Files.createDirectories(dir.resolve("src/com/example/outside"));
        Path source = Files.writeString(sources.resolve("CountingProvider.java"), SOURCE);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        compile(source, classes);
        Path services = Files.createDirectories(classes.resolve("META-INF/services"));
        Files.writeString(services.resolve(GovernanceProvider.class.getName()), SERVICES);
        return jar(classes, dir.resolve("outside.jar"));
    }

    private static void compile(Path source, Path classes) throws URISyntaxException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        }
        String classPath = locationOf(GovernanceProvider.class) + File.pathSeparator + locationOf(MemorySegment.class);
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int code = javac.run(null, diagnostics, diagnostics, "-proc:none", "--release", "17", "-classpath", classPath,
                "-d", classes.toString(), source.toString());
        if (code != 0) {
            throw new IllegalStateException("javac failed (" + code + ") on " + source + ": " + diagnostics.toString(StandardCharsets.UTF_8));
        }
    }

    private static String locationOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static Path jar(Path classes, Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            for (Path f : files) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return jar;
    }
}
