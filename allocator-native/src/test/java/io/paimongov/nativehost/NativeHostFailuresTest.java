package io.paimongov.nativehost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host that fails, answers nonsense or hangs gives a typed error naming its callback, never a
 * crash, and what it granted goes back; a bad host struct is refused when it attaches; the options
 * name what is wrong. Each host is one of the tests' C library (src/test/c/pg_test_hosts.c).
 */
class NativeHostFailuresTest {

    private static final long LIMIT = 64 << 20;

    @TempDir Path dir;

    private final NativeGovernanceProvider provider = new NativeGovernanceProvider();

    private EngineResources open(NativeHost host) {
        ProviderOptions options = ProviderOptions.builder(32 << 20, 64 << 10).spillDirs(List.of(dir), true).build();
        return provider.open(options, EngineEnvironment.builder().with(NativeHost.class, host).build());
    }

    @Test
    void aHostOfAnotherAbiVersionIsRefusedWhenItAttaches() {
        assertThatThrownBy(() -> TestHosts.open("mode=bad-abi", LIMIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("abi_version 99")
                .hasMessageContaining("PG_ABI_VERSION");
    }

    @Test
    void aHostWithoutARequiredCallbackIsRefusedNamingIt() {
        assertThatThrownBy(() -> TestHosts.open("mode=no-release", LIMIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[release]");
    }

    @Test
    void anErrorFromTryReserveIsTypedAndLaterRequestsFailToo() {
        NativeHost host = TestHosts.open("mode=reserve-error", LIMIT);
        try (EngineResources r = open(host)) {
            assertThatThrownBy(() -> r.memory().tryReserve(1000, ConsumerKind.WRITER))
                    .isInstanceOfSatisfying(NativeCallbackException.class, e -> assertThat(e.callback()).isEqualTo("try_reserve"))
                    .hasMessageContaining("returned the error -5");
            assertThatThrownBy(() -> r.memory().allocate(new ArrayList<>(), 1))
                    .isInstanceOf(NativeCallbackException.class)
                    .hasMessageContaining("the host failed earlier");
        } catch (NativeCallbackException closedOnAFailedHost) {
            assertThat(closedOnAFailedHost.callback()).isEqualTo("try_reserve");
        }
        assertThat(NativeHosts.detach(host.name())).isZero();
    }

    @Test
    void anOverGrantIsReleasedAgainAndNamed() {
        NativeHost host = TestHosts.open("mode=overgrant", LIMIT);
        EngineResources r = open(host);
        assertThatThrownBy(() -> r.memory().tryReserve(4096, ConsumerKind.SPILL_IO))
                .isInstanceOf(NativeCallbackException.class)
                .hasMessageContaining("granted 8192 bytes when asked for 4096");
        assertThat(host.usedBytes()).as("the host's own count after the over-grant went back").hasValue(0);
        assertThatThrownBy(r::close).isInstanceOf(NativeCallbackException.class);
        NativeHosts.detach(host.name());
    }

    @Test
    void aTryReserveThatHangsGivesATypedErrorInTimeAndItsLateGrantGoesBack() throws Exception {
        NativeHost host = TestHosts.open("mode=slow-reserve,timeout=300,hang=1500", LIMIT);
        EngineResources r = open(host);
        long start = System.nanoTime();
        assertThatThrownBy(() -> r.memory().tryReserve(1 << 20, ConsumerKind.COMPACTION))
                .isInstanceOfSatisfying(NativeCallbackException.class, e -> assertThat(e.callback()).isEqualTo("try_reserve"))
                .hasMessageContaining("did not answer within 300 ms");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("the caller waited about the timeout, not the hang")
                .isLessThan(1500);
        assertThatThrownBy(r::close).isInstanceOf(NativeCallbackException.class);
        // The host answers at 1.5 s: the grant nobody took must come back to it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((host.calls().inHost() > 0 || host.usedBytes().orElse(-1) != 0) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(host.usedBytes()).hasValue(0);
        assertThat(NativeHosts.detach(host.name())).isZero();
    }

    @Test
    void aReleaseTheHostRefusesStaysChargedAndTheCloseNamesIt() {
        NativeHost host = TestHosts.open("mode=release-error", LIMIT);
        EngineResources r = open(host);
        List<MemorySegment> pages = new ArrayList<>();
        r.memory().allocate(pages, 1);
        r.memory().release(pages);
        assertThat(r.memory().usedBytes()).as("a page the host would not take back stays counted").isEqualTo(64 << 10);
        assertThatThrownBy(r::close).hasMessageContaining("release");
        assertThat(host.failure()).hasValueSatisfying(e -> assertThat(e.callback()).isEqualTo("release"));
        assertThat(NativeHosts.detach(host.name())).as("still held on the host: the page's bytes").isEqualTo(64 << 10);
    }

    @Test
    void aReleaseAnsweredWithMoreThanWasGivenBackFailsTheHost() {
        NativeHost host = TestHosts.open("mode=release-overclaim", LIMIT);
        EngineResources r = open(host);
        assertThat(r.memory().tryReserve(1000, ConsumerKind.INDEX)).isTrue();
        r.memory().release(1000, ConsumerKind.INDEX);
        assertThat(host.failure()).hasValueSatisfying(e -> assertThat(e).hasMessageContaining("answered 2000 when given back 1000"));
        assertThatThrownBy(() -> r.memory().tryReserve(1, ConsumerKind.INDEX)).isInstanceOf(NativeCallbackException.class);
        assertThatThrownBy(r::close).isInstanceOf(NativeCallbackException.class);
        NativeHosts.detach(host.name());
    }

    @Test
    void anIsCancelledAnsweringNonsenseFailsTheHostNamingIt() throws Exception {
        NativeHost host = TestHosts.open("mode=cancel-nonsense", LIMIT);
        EngineResources r = open(host);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (host.failure().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(host.failure()).hasValueSatisfying(e -> {
            assertThat(e.callback()).isEqualTo("is_cancelled");
            assertThat(e).hasMessageContaining("answered 7");
        });
        assertThat(r.cancellation().cancelReason()).as("a failed poll is no cancel").isEmpty();
        assertThatThrownBy(() -> r.memory().tryReserve(1, ConsumerKind.OTHER)).isInstanceOf(NativeCallbackException.class);
        assertThatThrownBy(r::close).isInstanceOf(NativeCallbackException.class);
        NativeHosts.detach(host.name());
    }

    @Test
    void theHostsCancelReachesTheWriteAndDetachCancelsWhatIsStillOpen() throws Exception {
        NativeHost host = TestHosts.open("", LIMIT);
        EngineResources r = open(host);
        List<String> heard = new ArrayList<>();
        AutoCloseable listener = r.cancellation().onCancel(() -> heard.add("cancelled"));
        assertThat(host.cancelFromHost("query killed")).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (r.cancellation().cancelReason().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(r.cancellation().cancelReason()).hasValue("cancelled by the native host '" + host.name() + "'");
        assertThat(heard).containsExactly("cancelled");
        listener.close();
        r.close();

        NativeHost second = TestHosts.open("", LIMIT);
        EngineResources open = open(second);
        assertThat(open.memory().tryReserve(4096, ConsumerKind.WRITER)).isTrue();
        Thread closer = new Thread(() -> {
            while (open.cancellation().cancelReason().isEmpty()) {
                Thread.onSpinWait();
            }
            open.close();
        });
        closer.start();
        assertThat(NativeHosts.detach(second.name())).as("a detach cancels the open write and waits for its close").isZero();
        closer.join();
        assertThat(NativeHosts.detach(host.name())).isZero();
        assertThatThrownBy(() -> open(second)).isInstanceOf(IllegalStateException.class).hasMessageContaining("detached");
    }

    /**
     * A strict host (src/test/c/pg_test_hosts.c) aborts the process when any callback reaches it
     * after its on_detach: everything a write or the engine can still do after the detach must
     * stay on the Java side, with bounded calls and with direct ones ({@code PG_NO_TIMEOUT}, where
     * no shut-down call thread stands between).
     */
    @ParameterizedTest
    @ValueSource(strings = {"strict=1", "strict=1,timeout=none"})
    void noCallbackReachesTheHostAfterItDetached(String args) throws Exception {
        NativeHost host = TestHosts.open(args, LIMIT);
        EngineResources r = open(host);
        assertThat(r.memory().tryReserve(4096, ConsumerKind.WRITER)).isTrue();
        List<MemorySegment> pages = new ArrayList<>();
        r.memory().allocate(pages, 1);
        r.memory().release(pages);
        r.memory().release(4096, ConsumerKind.WRITER);
        r.close();
        assertThat(NativeHosts.detach(host.name())).isZero();

        r.memory().release(4096, ConsumerKind.WRITER);
        r.memory().release(pages);
        r.close();
        assertThat(host.usedBytes()).isEmpty();
        assertThat(host.cancelFromHost("too late")).isFalse();
        assertThatThrownBy(() -> open(host)).isInstanceOf(IllegalStateException.class);
        // Ten poll periods: a poller still running would have called is_cancelled by now.
        Thread.sleep(10 * HostDescription.DEFAULT_POLL_MS);
        assertThat(host.openWrites()).isZero();
    }

    @Test
    void theOptionsNameWhatIsWrong() {
        ProviderOptions unknownKey = ProviderOptions.builder(32 << 20, 64 << 10).spillDirs(List.of(dir), true)
                .providerKey("governance.native.hots", "q1").build();
        assertThatThrownBy(() -> provider.open(unknownKey, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("governance.native.hots");
        ProviderOptions none = ProviderOptions.builder(32 << 20, 64 << 10).spillDirs(List.of(dir), true).build();
        assertThatThrownBy(() -> provider.open(none, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(NativeGovernanceProvider.HOST_KEY);
        ProviderOptions nobody = ProviderOptions.builder(32 << 20, 64 << 10).spillDirs(List.of(dir), true)
                .providerKey(NativeGovernanceProvider.HOST_KEY, "no-such-host").build();
        assertThatThrownBy(() -> provider.open(nobody, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no-such-host' names no attached native host");
        ProviderOptions beyondTheHeap = ProviderOptions.builder(Runtime.getRuntime().maxMemory() * 2, 64 << 10)
                .spillDirs(List.of(dir), true).providerKey(NativeGovernanceProvider.HOST_KEY, NativeGovernanceProvider.REFERENCE_HOST).build();
        assertThatThrownBy(() -> provider.open(beyondTheHeap, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("governance.memory.budget")
                .hasMessageContaining("larger than the heap can give");
        assertThat(NativeHosts.names()).as("a refused open leaves no reference host attached").noneMatch(n -> n.startsWith("reference-"));
    }
}
