package io.paimongov.nativehost;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * {@link HostAbi} over the Foreign Function and Memory API, on Java 22 and later: the {@code
 * pg_host} is read through a memory segment no longer than its {@code struct_size}, and its
 * callbacks are called through downcall handles. An attached host or a host library needs nothing
 * compiled by this project; only the reference host comes from the provider's JNI library (looked
 * up, not loaded for JNI).
 *
 * <p>The layout is {@code paimon_governance.h}'s on the LP64 platforms the JDK runs on: {@code
 * pg_host} is two {@code uint32_t}, a pointer, two {@code uint32_t} and seven function pointers (80
 * bytes); {@code pg_metrics} two {@code uint32_t} and seventeen {@code int64_t} (144 bytes).
 * {@code FfmAbiTest} checks both against the C compiler's {@code sizeof} through the JNI library.
 *
 * <p>Compiled by the build with a JDK 22 or later ({@code --release 22}) into the same jar, and made
 * by {@link HostAbi} only on such a JDK. Stateless; thread-safe.
 */
final class FfmAbi implements HostAbi.Abi {

    private static final int ABI_VERSION = 1;
    private static final long HOST_SIZE = 80;
    private static final long METRICS_SIZE = 144;

    private static final long STRUCT_SIZE = 4;
    private static final long CTX = 8;
    private static final long TIMEOUT = 16;
    private static final long POLL = 20;
    private static final long TRY_RESERVE = 24;
    private static final long RELEASE = 32;
    private static final long IS_CANCELLED = 40;
    private static final long ON_METRICS = 48;
    private static final long USED_BYTES = 56;
    private static final long CANCEL = 64;
    private static final long ON_DETACH = 72;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle RESERVE_OR_RELEASE = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle INT_OF_CTX = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle LONG_OF_CTX = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle CANCEL_CALL = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle VOID_OF_CTX_AND = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
    private static final MethodHandle VOID_OF_CTX = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));

    @Override
    public String name() {
        return "ffm";
    }

    @Override
    public int headerAbiVersion() {
        return ABI_VERSION;
    }

    @Override
    public int hostStructSize() {
        return (int) HOST_SIZE;
    }

    @Override
    public long open(String library, String symbol, long limitBytes, String args) {
        SymbolLookup lookup;
        String name;
        if (library == null) {
            lookup = SymbolLookup.libraryLookup(NativeLibrary.file(), Arena.global());
            name = "pg_reference_host_open";
        } else {
            lookup = SymbolLookup.libraryLookup(Path.of(library), Arena.global());
            name = symbol;
        }
        MemorySegment function = lookup.find(name).orElseThrow(() -> new IllegalArgumentException(
                (library == null ? NativeLibrary.file().toString() : library) + ": undefined symbol: " + name));
        try (Arena arena = Arena.ofConfined()) {
            return ((MemorySegment) OPEN.invokeExact(function, limitBytes, arena.allocateFrom(args))).address();
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /** The host's struct, as long as it says it is (at most what this provider reads). */
    private static MemorySegment host(long address) {
        long size = Integer.toUnsignedLong(MemorySegment.ofAddress(address).reinterpret(8).get(JAVA_INT, STRUCT_SIZE));
        return MemorySegment.ofAddress(address).reinterpret(Math.min(size, HOST_SIZE));
    }

    /** The pointer at {@code offset}, or NULL when the struct ends before it. */
    private static MemorySegment pointer(MemorySegment host, long offset) {
        return host.byteSize() >= offset + 8 ? host.get(ADDRESS, offset) : MemorySegment.NULL;
    }

    @Override
    public long[] describe(long address) {
        MemorySegment head = MemorySegment.ofAddress(address).reinterpret(8);
        long[] values = {head.get(JAVA_INT, 0), Integer.toUnsignedLong(head.get(JAVA_INT, STRUCT_SIZE)), 0, 0, 0};
        MemorySegment h = host(address);
        if (h.byteSize() >= TIMEOUT + 4) {
            values[2] = Integer.toUnsignedLong(h.get(JAVA_INT, TIMEOUT));
        }
        if (h.byteSize() >= POLL + 4) {
            values[3] = Integer.toUnsignedLong(h.get(JAVA_INT, POLL));
        }
        long[] offsets = {TRY_RESERVE, RELEASE, IS_CANCELLED, ON_METRICS, USED_BYTES, CANCEL, ON_DETACH};
        long mask = 0;
        for (int i = 0; i < offsets.length; i++) {
            if (!pointer(h, offsets[i]).equals(MemorySegment.NULL)) {
                mask |= 1L << i;
            }
        }
        values[4] = mask;
        return values;
    }

    @Override
    public long tryReserve(long address, long bytes, int consumer) {
        return reserveOrRelease(address, TRY_RESERVE, bytes, consumer);
    }

    @Override
    public long release(long address, long bytes, int consumer) {
        return reserveOrRelease(address, RELEASE, bytes, consumer);
    }

    /** Calls the host's {@code try_reserve} or {@code release} (the function pointer at {@code offset}). */
    private static long reserveOrRelease(long address, long offset, long bytes, int consumer) {
        MemorySegment h = host(address);
        try {
            return (long) RESERVE_OR_RELEASE.invokeExact(pointer(h, offset), h.get(ADDRESS, CTX), bytes, consumer);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int isCancelled(long address) {
        MemorySegment h = host(address);
        try {
            return (int) INT_OF_CTX.invokeExact(pointer(h, IS_CANCELLED), h.get(ADDRESS, CTX));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public long usedBytes(long address) {
        MemorySegment h = host(address);
        MemorySegment f = pointer(h, USED_BYTES);
        if (f.equals(MemorySegment.NULL)) {
            return -1;
        }
        try {
            return (long) LONG_OF_CTX.invokeExact(f, h.get(ADDRESS, CTX));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cancel(long address, String reason) {
        MemorySegment h = host(address);
        MemorySegment f = pointer(h, CANCEL);
        if (f.equals(MemorySegment.NULL)) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            return (int) CANCEL_CALL.invokeExact(f, h.get(ADDRESS, CTX), arena.allocateFrom(reason));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void onMetrics(long address, long[] values, boolean finalReport) {
        MemorySegment h = host(address);
        MemorySegment f = pointer(h, ON_METRICS);
        if (f.equals(MemorySegment.NULL)) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(METRICS_SIZE, 8);
            m.set(JAVA_INT, 0, (int) METRICS_SIZE);
            m.set(JAVA_INT, 4, finalReport ? 1 : 0);
            for (int i = 0; i < values.length && 8 + 8L * i < METRICS_SIZE; i++) {
                m.set(JAVA_LONG, 8 + 8L * i, values[i]);
            }
            VOID_OF_CTX_AND.invokeExact(f, h.get(ADDRESS, CTX), m);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void onDetach(long address) {
        MemorySegment h = host(address);
        MemorySegment f = pointer(h, ON_DETACH);
        if (f.equals(MemorySegment.NULL)) {
            return;
        }
        try {
            VOID_OF_CTX.invokeExact(f, h.get(ADDRESS, CTX));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private static RuntimeException failed(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
