package io.paimongov.benchmarks.jmh;

/**
 * The JVM flags every forked benchmark JVM gets ({@code @Fork(jvmArgsAppend = ...)}), so that the
 * benchmarks run however JMH was started: Arrow needs {@code java.nio} open to wrap its buffers as
 * Paimon segments (allocator-offheap), and Spark's memory manager wants the rest of Spark's own list
 * ({@code org.apache.spark.launcher.JavaModuleOptions.defaultModuleOptions()} of Spark 4.0.4, as
 * {@code ./paimon-governance} passes it, without {@code --add-modules=jdk.incubator.vector}, which
 * only makes the JVM warn). Page benchmarks also start with the whole heap touched ({@link
 * #PRE_TOUCH}). Constants, because annotation values must be.
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
