package io.paimongov.runtime.internal.memory;

/**
 * The JVM flags of the forked JVMs of this package's JMH benchmarks ({@code @Fork(jvmArgsAppend =
 * ...)}): the list of the benchmarks module's {@code io.paimongov.benchmarks.jmh.ForkFlags}, so that
 * the pool's page and the provider's page are measured in the same JVM settings. Repeated, not
 * shared: the benchmarks module depends on the runtime, so the runtime's tests cannot read its
 * constants, and annotation values must be constants of this compilation. Arrow needs {@code
 * java.nio} open to wrap its buffers as Paimon segments, Spark's memory manager the rest of Spark's
 * own list ({@code JavaModuleOptions.defaultModuleOptions()} of Spark 4.0.4); page benchmarks start
 * with the whole heap touched ({@link #PRE_TOUCH}).
 */
final class ForkFlags {

    static final String HEAP = "-Xmx1g";
    static final String HEAP_START = "-Xms1g";
    /**
     * Touch the whole heap at start-up: on a fresh JVM the first pass through the young generation
     * pays a page fault per 4 KiB, which made a 64 KiB {@code byte[]} 20 to 50 times slower here
     * than in a warm JVM, for longer than a warm-up iteration.
     */
    static final String PRE_TOUCH = "-XX:+AlwaysPreTouch";
    static final String IGNORE_UNRECOGNIZED = "-XX:+IgnoreUnrecognizedVMOptions";
    static final String NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    static final String LANG = "--add-opens=java.base/java.lang=ALL-UNNAMED";
    static final String INVOKE = "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED";
    static final String REFLECT = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";
    static final String IO = "--add-opens=java.base/java.io=ALL-UNNAMED";
    static final String NET = "--add-opens=java.base/java.net=ALL-UNNAMED";
    static final String UTIL = "--add-opens=java.base/java.util=ALL-UNNAMED";
    static final String CONCURRENT = "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED";
    static final String ATOMIC = "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED";
    static final String REF = "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED";
    static final String NIO_CH = "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";
    static final String NIO_CS = "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED";
    static final String ACTION = "--add-opens=java.base/sun.security.action=ALL-UNNAMED";
    static final String CALENDAR = "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED";
    static final String METHOD_HANDLE = "-Djdk.reflect.useDirectMethodHandle=false";
    static final String NETTY = "-Dio.netty.tryReflectionSetAccessible=true";

    private ForkFlags() {}
}
