package io.paimongov.nativehost;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The native hosts attached in this JVM, by name: what {@code governance.native.host} names. A host
 * that embeds the JVM attaches with {@code pg_attach} and detaches with {@code pg_detach}
 * (paimon_governance_jni.h), which call {@link #attach} and {@link #detach} through JNI; Java code
 * may call them too. {@link #open} makes a host from a host library, as the kit and the CLI do.
 *
 * <p>Thread-safe. Names are unique among attached hosts; a detached name may be attached again.
 */
public final class NativeHosts {

    private static final Map<String, NativeHost> ATTACHED = new ConcurrentHashMap<>();
    private static final AtomicLong OPENED = new AtomicLong();

    /** The symbol a host library exports unless told otherwise (paimon_governance.h, {@code pg_host_open_fn}). */
    public static final String OPEN_SYMBOL = "pg_host_open";

    private NativeHosts() {}

    /**
     * Attaches the {@code pg_host} at {@code address} under {@code name}.
     *
     * @throws IllegalArgumentException for a blank name, a name in use, or a host the provider
     *     cannot use (see paimon_governance.h: abi_version, struct_size, required callbacks)
     * @throws IllegalStateException when the provider's JNI library is not there
     */
    public static NativeHost attach(String name, long address) {
        HostAbi.require();
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a native host needs a name (pg_attach's name argument)");
        }
        if (name.equals(NativeGovernanceProvider.REFERENCE_HOST)) {
            throw new IllegalArgumentException("'" + name + "' is the name of the provider's own reference host; attach under another name");
        }
        NativeHost host = new NativeHost(name, address);
        if (ATTACHED.putIfAbsent(name, host) != null) {
            throw new IllegalArgumentException("a native host named '" + name + "' is attached already; detach it first or pick another name");
        }
        return host;
    }

    /**
     * Detaches the host named {@code name}: see {@link NativeHost} and {@code pg_detach}.
     *
     * @return the bytes its writes still held on it (0 when everything came back)
     * @throws IllegalArgumentException when no host of that name is attached
     * @throws IllegalStateException when its writes or calls did not end within its callback
     *     timeout; the host then stays attached
     */
    public static long detach(String name) {
        NativeHost host = ATTACHED.get(name);
        if (host == null) {
            throw new IllegalArgumentException("no native host named '" + name + "' is attached");
        }
        long held = host.detach();
        ATTACHED.remove(name, host);
        return held;
    }

    /** The names of the hosts attached now, sorted. */
    public static List<String> names() {
        return ATTACHED.keySet().stream().sorted().toList();
    }

    /** The host attached under {@code name}. */
    public static Optional<NativeHost> find(String name) {
        return Optional.ofNullable(ATTACHED.get(name));
    }

    /**
     * Opens a host from a host library and attaches it under a new name ({@code <prefix>-<n>}): the
     * library's {@code pg_host_open_fn} named {@code symbol} is called with {@code limitBytes} and
     * {@code args}. With {@code library} null, the reference host built into the provider is opened
     * (a correct host with a hard limit). Detach it with {@link #detach}; its {@code on_detach} gives
     * it back to the library.
     *
     * @throws IllegalArgumentException when the library or symbol cannot be loaded, the function
     *     returned NULL, or the host is not usable
     */
    public static NativeHost open(String prefix, String library, String symbol, long limitBytes, String args) {
        HostAbi.require();
        String name = prefix + "-" + OPENED.incrementAndGet();
        long address = HostAbi.open(library, symbol == null ? OPEN_SYMBOL : symbol, limitBytes, args == null ? "" : args);
        if (address == 0) {
            throw new IllegalArgumentException((library == null ? "the reference host" : "the host library '" + library + "'")
                    + " returned NULL from " + (symbol == null ? OPEN_SYMBOL : symbol) + "(" + limitBytes + ", \"" + args + "\")");
        }
        // A host it refuses is not given back: its on_detach cannot be trusted either.
        return attach(name, address);
    }
}
