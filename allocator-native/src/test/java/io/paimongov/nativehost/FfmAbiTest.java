package io.paimongov.nativehost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider reaches hosts through JNI on Java 17 and through the Foreign Function and Memory API
 * on Java 22 and later. The second runs in a child JVM of the JDK 22+ the build compiled the FFM
 * implementation with ({@code target/ffm-jdk.txt}, src/build/ffm.sh), which runs {@link FfmCheck}:
 * the struct layouts against the C compiler's, a governed write of a real table on a C host, a
 * grant that answers nonsense, a call that hangs, and two kit rules on a correct and a broken host.
 */
class FfmAbiTest {

    @TempDir Path dir;

    @Test
    void onJava17TheProviderUsesJni() {
        assumeTrue(Runtime.version().feature() < 22, "this JVM is Java 22 or later");
        assumeTrue(NativeLibrary.available(), NativeLibrary::failure);
        assertThat(HostAbi.name()).isEqualTo("jni");
    }

    @Test
    void onJava22AndLaterTheProviderUsesTheFfmApi() throws Exception {
        Path record = Path.of("target", "ffm-jdk.txt");
        assumeTrue(Files.isRegularFile(record), "the build found no JDK 22 or later, so the FFM implementation was not built");
        Path java = Path.of(Files.readString(record).strip(), "bin", "java");
        Path lib = TestHosts.library();
        Process p = new ProcessBuilder(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), FfmCheck.class.getName(), lib.toString(), dir.toString()))
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        Map<String, String> said = new HashMap<>();
        out.lines().filter(l -> l.startsWith("ffm.")).forEach(l -> said.put(l.substring(4, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
        assertThat(p.exitValue()).as(out + Files.readString(dir.resolve("stderr.txt"))).isZero();

        assertThat(said).containsEntry("abi", "ffm")
                .containsEntry("hostStructSize", said.get("cHostStructSize"))
                .containsEntry("cAbiVersion", "1/1")
                .containsEntry("heldAtDetach", "0")
                .containsEntry("readBackIsTheModel", "true")
                .containsEntry("hostUsedAtEnd", "0")
                .containsEntry("hostPeakWithinLimit", "true")
                .containsEntry("overgrant", "try_reserve used 0")
                .containsEntry("slowReserve", "try_reserve timed out")
                .containsEntry("kit.correct.MEM-1", "PASSED")
                .containsEntry("kit.correct.CANCEL-5", "PASSED")
                .containsEntry("kit.overgrant.MEM-1", "FAILED");
        assertThat(Long.parseLong(said.get("writeBufferBytes"))).isPositive();
    }
}
