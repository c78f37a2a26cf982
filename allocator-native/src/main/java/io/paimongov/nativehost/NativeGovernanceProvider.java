package io.paimongov.nativehost;

import io.paimongov.allocator.support.HeapLimit;
import io.paimongov.allocator.support.LeakCounter;
import io.paimongov.allocator.support.PagedResources;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Provider {@code native}: a native host (C, C++, Rust) governs the write through the C ABI of
 * {@code paimon_governance.h} (docs/native.md). Pages are {@code byte[]} from the write's budget,
 * each charged to the host first; reservations go to the host with their kind; the write's cancel
 * is the host's {@code is_cancelled}; its metrics go to the host's {@code on_metrics}. Spill goes
 * under {@code governance.spill.dirs}.
 *
 * <p>Which host: the {@link NativeHost} in the {@link EngineEnvironment} if there is one (the
 * standalone engine puts it there), else the one attached under {@value #HOST_KEY}, or a reference
 * host of the write's own when that key is {@value #REFERENCE_HOST}.
 *
 * <p>Stateless apart from the process-wide leak counter; thread-safe.
 */
public final class NativeGovernanceProvider implements GovernanceProvider {

    public static final String NAME = "native";

    /** The name of the attached host a write uses (pg_attach's name). */
    public static final String HOST_KEY = "governance.native.host";

    /**
     * The value of {@value #HOST_KEY} that gives each write a reference host of its own (the correct
     * host built into the provider's JNI library) with a hard limit of the write's budget, given
     * back when the write closes: to try the native path with no host of one's own, as {@code demo
     * --provider native} does. An attached host may not take this name.
     */
    public static final String REFERENCE_HOST = "reference";

    /** The host library {@link #standalone} opens; unset: the reference host built into the provider. */
    public static final String LIBRARY_PROPERTY = "paimon.governance.native.library";

    /** The function {@link #standalone} calls in that library; unset: {@value NativeHosts#OPEN_SYMBOL}. */
    public static final String SYMBOL_PROPERTY = "paimon.governance.native.symbol";

    /** The {@code args} {@link #standalone} passes to it; unset: "". */
    public static final String ARGS_PROPERTY = "paimon.governance.native.args";

    static final LeakCounter LEAKS = new LeakCounter();

    /** The host sets no compaction thread limit through the ABI: a safety cap, as the heap provider's. */
    static final int MAX_COMPACTION_THREADS = 64;

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws IllegalArgumentException for an unknown {@code governance.native.*} key, when no host
     *     is given or the one named is not attached, and for a {@code governance.memory.budget}
     *     larger than the heap can give (the pages are {@code byte[]}; PROV.7)
     * @throws IllegalStateException when the provider's JNI library is missing, or the host is
     *     detached
     */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        options.rejectUnknownKeys(NAME, List.of(HOST_KEY));
        // Pages are byte[] on the Java heap, whatever the host's limit: a budget the heap cannot hold is refused (PROV.7).
        HeapLimit.check(options.budgetBytes());
        NativeHost given = environment.find(NativeHost.class).orElse(null);
        boolean own = given == null && options.raw(HOST_KEY).filter(REFERENCE_HOST::equals).isPresent();
        NativeHost host = given != null ? given
                : own ? NativeHosts.open(REFERENCE_HOST, null, null, options.budgetBytes(), "") : attached(options);
        long writeId;
        try {
            writeId = host.writeOpened();
        } catch (RuntimeException e) {
            if (own) {
                NativeHosts.detach(host.name());
            }
            throw e;
        }
        try {
            NativeSegmentAllocator allocator = new NativeSegmentAllocator(host, own, options.pageSize(), options.budgetBytes(), LEAKS);
            return new PagedResources(
                    allocator,
                    SpillLocations.of(options.spillDirs(), options.spillMaxBytes()),
                    host.cancel().signal(),
                    host.metrics().reporter(writeId),
                    CompactionThreads.daemons("paimon-gov-compaction-", MAX_COMPACTION_THREADS));
        } catch (RuntimeException | Error e) {
            host.writeClosed();
            if (own) {
                NativeHosts.detach(host.name());
            }
            throw e;
        }
    }

    private static NativeHost attached(ProviderOptions options) {
        HostAbi.require();
        String name = options.raw(HOST_KEY).orElseThrow(() -> new IllegalArgumentException(
                "the native provider needs a host: set '" + HOST_KEY + "' to the name a native host attached under (pg_attach),"
                        + " or open the write in an environment that carries a NativeHost"));
        return NativeHosts.find(name).orElseThrow(() -> new IllegalArgumentException(
                "'" + HOST_KEY + "' = '" + name + "' names no attached native host; attached now: " + NativeHosts.names()));
    }

    /**
     * A host of {@code budgetBytes} on its own: the reference host, or the host library named by
     * {@value #LIBRARY_PROPERTY} (with {@value #SYMBOL_PROPERTY} and {@value #ARGS_PROPERTY}), for
     * the kit and the CLI. Empty when no host can be reached here, or the reference host is asked
     * for and the JNI library that holds it is missing.
     *
     * @throws IllegalArgumentException when the host library cannot be opened or its host is unusable
     */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        String library = System.getProperty(LIBRARY_PROPERTY);
        if (!HostAbi.available() || library == null && !NativeLibrary.available()) {
            return Optional.empty();
        }
        return Optional.of(new NativeStandaloneEngine(NativeHosts.open(
                "standalone",
                library,
                System.getProperty(SYMBOL_PROPERTY),
                budgetBytes,
                System.getProperty(ARGS_PROPERTY, ""))));
    }

    /**
     * How many write allocators of this process closed while still holding pages or reservations
     * (a leak). Counts from the start of the process; never decreases.
     */
    public static long leaksDetected() {
        return LEAKS.count();
    }
}
