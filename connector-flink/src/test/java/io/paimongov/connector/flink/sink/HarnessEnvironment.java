package io.paimongov.connector.flink.sink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.util.TestingTaskManagerRuntimeInfo;

/**
 * The mock task environment of the operator-harness tests: 8 MiB of managed memory, and task
 * manager temp dirs ({@code io.tmp.dirs}, the writer's spill roots) of the test's own under {@code
 * dir}, not the JVM's {@code java.io.tmpdir}, where other processes keep their own {@code
 * paimon-gov-*} directories.
 */
final class HarnessEnvironment {

    private HarnessEnvironment() {}

    static MockEnvironment of(Path dir) throws IOException {
        Path tmp = Files.createDirectories(dir.resolve("tm-tmp"));
        return new MockEnvironmentBuilder()
                .setManagedMemorySize(8L << 20)
                .setTaskManagerRuntimeInfo(new TestingTaskManagerRuntimeInfo(new Configuration(), tmp.toString()))
                .build();
    }
}
