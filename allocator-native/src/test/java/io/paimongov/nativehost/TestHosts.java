package io.paimongov.nativehost;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tests' host library, src/test/c/pg_test_hosts.c, built by the module's build: hosts written
 * against paimon_governance.h alone, correct or broken as their {@code args} say.
 */
final class TestHosts {

    private TestHosts() {}

    /** The library's file; skips the test, with the reason, where the build could not compile it. */
    static Path library() {
        assumeTrue(NativeLibrary.available(), NativeLibrary::failure);
        Path lib = Path.of("target", "test-native", NativeLibrary.platform(), System.mapLibraryName("pg_test_hosts")).toAbsolutePath();
        assumeTrue(Files.isRegularFile(lib), () -> lib + " was not built (no C compiler?)");
        return lib;
    }

    /** A new host of the library with a hard limit of {@code limitBytes}, attached under a new name. */
    static NativeHost open(String args, long limitBytes) {
        return NativeHosts.open("test", library().toString(), null, limitBytes, args);
    }

    /**
     * What a host with {@code record=PATH} wrote at its detach: per consumer code, {@code {bytes
     * reserved in all, most held at once, held at the end}}; and {@code used} and {@code peak}
     * under the codes -1 and -2.
     */
    static Map<Integer, long[]> record(Path file) throws IOException {
        Map<Integer, long[]> byCode = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            List<String> f = List.of(line.trim().split(" "));
            switch (f.get(0)) {
                case "used" -> byCode.put(-1, new long[] {Long.parseLong(f.get(1))});
                case "peak" -> byCode.put(-2, new long[] {Long.parseLong(f.get(1))});
                default -> byCode.put(Integer.parseInt(f.get(0)),
                        new long[] {Long.parseLong(f.get(1)), Long.parseLong(f.get(2)), Long.parseLong(f.get(3))});
            }
        }
        return byCode;
    }
}
