package io.paimongov.nativehost;

import io.paimongov.allocator.support.standalone.ManualCancellation;
import io.paimongov.spi.CancellationSignal;

/**
 * A host's cancel, heard by one poller thread per host ({@code paimon-gov-native-<host>-cancel})
 * that calls {@code is_cancelled} every {@code cancel_poll_ms} while writes are open on the host,
 * and runs the writes' listeners once it answers 1. The writes read the last answer: asking a
 * write whether it is cancelled never calls the host.
 *
 * <p>A poll that fails, answers other than 0 or 1, or overruns the callback timeout fails the host
 * ({@link NativeHost#fail}); polling stops there, and the host's writes stop at their next request
 * for memory.
 *
 * <p>Thread-safe.
 */
final class HostCancel {

    private final NativeHost host;
    /** Fired once: by the host's answer 1, or when the host detaches. */
    private final ManualCancellation cancel = new ManualCancellation();
    private final Object pollerLock = new Object();
    private Thread poller;
    private boolean stopped;

    HostCancel(NativeHost host) {
        this.host = host;
    }

    /** The signal one write reads: this host's cancel. */
    CancellationSignal signal() {
        return cancel;
    }

    /** Listeners of open writes, registered and not removed: what the kit counts (RES.5). */
    int listenerCount() {
        return cancel.listenerCount();
    }

    /** Starts the poller when it does not run. */
    void writeOpened() {
        synchronized (pollerLock) {
            if (poller == null && !stopped) {
                poller = new Thread(this::poll, "paimon-gov-native-" + host.name() + "-cancel");
                poller.setDaemon(true);
                poller.start();
            }
        }
    }

    /** Cancels every write, as a host's cancel would, with {@code why}. */
    void detaching(String why) {
        fire(why);
    }

    /** Ends the poller; called once no write is open any more. */
    void stop() {
        Thread t;
        synchronized (pollerLock) {
            stopped = true;
            t = poller;
        }
        if (t != null) {
            t.interrupt();
        }
    }

    private void fire(String why) {
        cancel.cancel(why);
    }

    private void poll() {
        long pause = host.description().cancelPollMillis();
        while (true) {
            synchronized (pollerLock) {
                if (stopped || host.openWrites() == 0) {
                    poller = null;
                    return;
                }
            }
            if (cancel.cancelReason().isEmpty() && host.failure().isEmpty()) {
                try {
                    long answer = host.calls().call("is_cancelled", () -> HostAbi.isCancelled(host.address()), null);
                    if (answer == 1) {
                        fire("cancelled by the native host '" + host.name() + "'");
                    } else if (answer != 0) {
                        host.fail("is_cancelled", answer < 0 ? "returned the error " + answer : "answered " + answer + " (it must answer 0 or 1)");
                    }
                } catch (NativeCallbackException e) {
                    host.fail(e);
                }
            }
            host.metrics().tick();
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                synchronized (pollerLock) {
                    poller = null;
                }
                return;
            }
        }
    }
}
