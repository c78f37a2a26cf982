package io.paimongov.runtime.internal.cancel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.WriteCancelledException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CancellationTokenTest {

    @Test
    void cancelFromAnotherThreadIsSeenWithItsReason() throws Exception {
        CancellationToken token = standalone();
        AtomicReference<Thread> listenedOn = new AtomicReference<>();
        token.onCancel(() -> listenedOn.set(Thread.currentThread()));
        Thread t = new Thread(() -> token.cancel("user pressed stop"));
        t.start();
        t.join();
        assertThat(token.isCancelled()).isTrue();
        assertThat(listenedOn).as("the listener ran on the cancelling thread").hasValue(t);
        assertThatThrownBy(token::throwIfCancelled)
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: user pressed stop");
    }

    @Test
    void firstCancelWinsAndListenersRunOnce() {
        CancellationToken token = standalone();
        AtomicInteger runs = new AtomicInteger();
        token.onCancel(runs::incrementAndGet);
        assertThat(token.cancel("first")).isTrue();
        assertThat(token.cancel("second")).isFalse();
        assertThat(token.reason()).contains("first");
        assertThat(runs).hasValue(1);
        token.onCancel(runs::incrementAndGet);
        assertThat(runs).hasValue(2);
    }

    @Test
    void theEngineSignalIsPolled() {
        AtomicReference<String> engine = new AtomicReference<>();
        CancellationSignal polled =
                new CancellationSignal() {
                    @Override
                    public Optional<String> cancelReason() {
                        return Optional.ofNullable(engine.get());
                    }

                    @Override
                    public AutoCloseable onCancel(Runnable listener) {
                        return () -> {};
                    }
                };
        CancellationToken token = new CancellationToken(polled);
        assertThat(token.isCancelled()).isFalse();
        engine.set("task killed");
        assertThat(token.isCancelled()).isTrue();
        assertThat(token.reason()).contains("task killed");
    }

    @Test
    void theEngineSignalIsPushed() {
        List<Runnable> subscribers = new CopyOnWriteArrayList<>();
        AtomicInteger unsubscribed = new AtomicInteger();
        CancellationSignal pushed =
                new CancellationSignal() {
                    @Override
                    public Optional<String> cancelReason() {
                        return subscribers.isEmpty() ? Optional.empty() : Optional.of("slot released");
                    }

                    @Override
                    public AutoCloseable onCancel(Runnable listener) {
                        subscribers.add(listener);
                        return unsubscribed::incrementAndGet;
                    }
                };
        CancellationToken token = new CancellationToken(pushed);
        AtomicInteger heard = new AtomicInteger();
        token.onCancel(heard::incrementAndGet);
        subscribers.forEach(Runnable::run);
        assertThat(heard).hasValue(1);
        assertThat(token.reason()).contains("slot released");
        token.close();
        assertThat(unsubscribed).hasValue(1);
    }

    /** A token with no engine signal. */
    private static CancellationToken standalone() {
        return new CancellationToken(CancellationSignal.never());
    }
}
