package io.paimongov.offheap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The one JVM flag, checked in child JVMs that run {@link OpenOnePage} on this test's class path:
 * without it open() fails at once and names the flag; with it a page goes through.
 */
class AddOpensTest {

    private static final String FLAG = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private record Run(int exitCode, String out, String err) {}

    private static Run java(String... jvmFlags) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OpenOnePage.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command);
        // Launchers read these too; the child must have exactly the flags given here.
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        Process process = builder.start();
        process.getOutputStream().close();
        // Small outputs: reading one stream to its end cannot block the child on the other.
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ended").isTrue();
        return new Run(process.exitValue(), out, err);
    }

    @Test
    void withoutTheFlagOpenFailsAtOnceNamingIt() throws Exception {
        Run run = java();

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).doesNotContain("ok");
        assertThat(run.err())
                .contains("java.lang.IllegalStateException: provider 'offheap' needs java.nio opened to Arrow: start the JVM with " + FLAG)
                .contains("at io.paimongov.offheap.OffheapGovernanceProvider.open")
                .doesNotContain("UnsupportedOperationException");
    }

    @Test
    void withTheFlagAPageGoesThrough() throws Exception {
        Run run = java(FLAG);

        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo("ok" + System.lineSeparator());
        assertThat(run.exitCode()).isZero();
    }
}
