package io.paimongov.nativehost;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Calls a host's callbacks with a bound: each call runs on a thread of this host's own (daemon,
 * {@code paimon-gov-native-<host>-call-<n>}) while the caller waits at most the host's callback
 * timeout. A call that does not answer in time leaves its thread in the host and throws {@link
 * NativeCallbackException}; when it answers later, the answer goes to the call's {@code late}
 * handler (a grant that came too late is given back there).
 *
 * <p>Waiting does not end early on an interrupt: the interrupt is kept and set again when the
 * call returns (ALLOC.13 of docs/spi.md: releases complete on interrupted threads).
 *
 * <p>A host that set {@code PG_NO_TIMEOUT} is called on the caller's thread instead, unbounded.
 *
 * <p>Thread-safe. Counts the calls in the host, so that a detach can wait for them. Idle call
 * threads end after a second, so none outlives the writes that used it for long.
 */
final class HostCalls {

    /**
     * How long a call thread waits idle before it ends: long enough to carry a write's stream of
     * page requests, short enough that no thread outlives the write by more than a second.
     */
    private static final long IDLE_SECONDS = 1;

    private final String host;
    private final long timeoutMillis;
    private final AtomicInteger threadNumbers = new AtomicInteger();
    private final AtomicInteger inHost = new AtomicInteger();
    private volatile ThreadPoolExecutor threads;

    HostCalls(String host, long timeoutMillis) {
        this.host = host;
        this.timeoutMillis = timeoutMillis;
        this.threads = newThreads();
    }

    private ThreadPoolExecutor newThreads() {
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
            Thread t = new Thread(task, "paimon-gov-native-" + host + "-call-" + threadNumbers.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** How long a detach waits for writes and calls to end: the callback timeout, or its default for an unbounded host. */
    long waitMillis() {
        return timeoutMillis == HostDescription.NO_TIMEOUT ? HostDescription.DEFAULT_TIMEOUT_MS : timeoutMillis;
    }

    /** Calls now in the host, answered or not. */
    int inHost() {
        return inHost.get();
    }

    /**
     * Runs {@code call} in the host and returns its answer.
     *
     * @param callback the callback's name, for the error
     * @param late receives an answer that came after the caller stopped waiting; null to drop it
     * @throws NativeCallbackException when the call did not answer within the timeout, or threw
     */
    long call(String callback, LongSupplier call, LongConsumer late) {
        if (timeoutMillis == HostDescription.NO_TIMEOUT) {
            return direct(callback, call);
        }
        CompletableFuture<Long> answer = new CompletableFuture<>();
        inHost.incrementAndGet();
        Runnable task = () -> {
            try {
                answer.complete(call.getAsLong());
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            } finally {
                inHost.decrementAndGet();
            }
        };
        try {
            while (true) {
                ThreadPoolExecutor now = threads;
                try {
                    now.execute(task);
                    break;
                } catch (RejectedExecutionException e) {
                    if (threads == now) {
                        throw e;
                    }
                    // Replaced by writesEnded() meanwhile: use the new threads.
                }
            }
        } catch (RuntimeException e) {
            inHost.decrementAndGet();
            throw new NativeCallbackException(host, callback, "could not be called: " + e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    if (late != null) {
                        answer.thenAccept(late::accept);
                    }
                    throw new NativeCallbackException(host, callback, "did not answer within " + timeoutMillis
                            + " ms (callback_timeout_ms); its thread is left in the host");
                } catch (ExecutionException e) {
                    throw new NativeCallbackException(host, callback, "failed: " + e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A host that never blocks ({@code PG_NO_TIMEOUT}): the call on the caller's thread. */
    private long direct(String callback, LongSupplier call) {
        inHost.incrementAndGet();
        try {
            return call.getAsLong();
        } catch (RuntimeException | Error e) {
            throw new NativeCallbackException(host, callback, "failed: " + e);
        } finally {
            inHost.decrementAndGet();
        }
    }

    /**
     * The last open write closed: the idle call threads end now rather than after their idle time,
     * and later calls get new ones. A call still in the host keeps its thread.
     */
    void writesEnded() {
        ThreadPoolExecutor old = threads;
        threads = newThreads();
        old.shutdown();
    }

    /** Lets idle call threads end; a call still in the host keeps its thread. */
    void shutdown() {
        threads.shutdown();
    }
}
