package io.paimongov.nativehost;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.tck.Rule;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * What {@link FfmAbiTest} runs in a child JVM of a JDK 22 or later: the provider's paths through the
 * FFM implementation, each printed to stdout as {@code ffm.<key>=<value>} for the test to judge.
 * Arguments: the tests' host library, a scratch directory.
 */
final class FfmCheck {

    private FfmCheck() {}

    public static void main(String[] args) throws Exception {
        String lib = args[0];
        Path dir = Path.of(args[1]);
        print("abi", HostAbi.name());
        print("hostStructSize", HostAbi.hostStructSize());
        print("cHostStructSize", new JniAbi().hostStructSize());
        print("cAbiVersion", new JniAbi().headerAbiVersion() + "/" + HostAbi.headerAbiVersion());

        Path record = dir.resolve("record.txt");
        NativeHost host = NativeHosts.open("ffm", lib, null, 3 << 20, "record=" + record);
        Workload w = Workload.random(7, 40_000, 10_000, 2, 48);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.PROVIDER, NativeGovernanceProvider.NAME,
                NativeGovernanceProvider.HOST_KEY, host.name(),
                GovernanceOptions.MEMORY_BUDGET, "8m",
                "governance.memory.page-size", "16k",
                GovernanceOptions.SPILL_DIRS, Files.createDirectories(dir.resolve("spill")).toString()));
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, ResourceContext.open("ffm-write", options, EngineEnvironment.standalone()))) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        print("heldAtDetach", NativeHosts.detach(host.name()));
        print("readBackIsTheModel", TestTables.read(table).equals(w.expected()));
        Map<Integer, long[]> byKind = TestHosts.record(record);
        print("hostUsedAtEnd", byKind.get(-1)[0]);
        print("hostPeakWithinLimit", byKind.get(-2)[0] > 0 && byKind.get(-2)[0] <= 3 << 20);
        print("writeBufferBytes", byKind.get(ConsumerKind.WRITE_BUFFER.code())[0]);

        NativeGovernanceProvider provider = new NativeGovernanceProvider();
        ProviderOptions small = ProviderOptions.builder(8 << 20, 16 << 10).spillDirs(List.of(dir), true).build();
        NativeHost over = NativeHosts.open("ffm", lib, null, 64 << 20, "mode=overgrant");
        EngineResources r = provider.open(small, EngineEnvironment.builder().with(NativeHost.class, over).build());
        try {
            r.memory().tryReserve(4096, ConsumerKind.WRITER);
            print("overgrant", "granted");
        } catch (NativeCallbackException e) {
            print("overgrant", e.callback() + " used " + over.usedBytes().orElse(-1));
        }
        closeQuietly(r);
        NativeHosts.detach(over.name());

        NativeHost slow = NativeHosts.open("ffm", lib, null, 64 << 20, "mode=slow-reserve,timeout=200,hang=600");
        EngineResources s = provider.open(small, EngineEnvironment.builder().with(NativeHost.class, slow).build());
        try {
            s.memory().tryReserve(4096, ConsumerKind.WRITER);
            print("slowReserve", "granted");
        } catch (NativeCallbackException e) {
            print("slowReserve", e.callback() + (e.getMessage().contains("did not answer within 200 ms") ? " timed out" : " " + e.getMessage()));
        }
        closeQuietly(s);

        System.setProperty(NativeGovernanceProvider.LIBRARY_PROPERTY, lib);
        for (String args2 : List.of("mode=correct", "mode=overgrant")) {
            System.setProperty(NativeGovernanceProvider.ARGS_PROPERTY, args2);
            TckReport report = TckRunner.runDiscovered(NativeGovernanceProvider.NAME, FfmCheck.class.getClassLoader(),
                    Set.of(Rule.MEM_1, Rule.CANCEL_5), null);
            print("kit." + args2.substring("mode=".length()) + ".MEM-1", report.rule("MEM-1").status());
            print("kit." + args2.substring("mode=".length()) + ".CANCEL-5", report.rule("CANCEL-5").status());
        }
        System.out.flush();
        System.exit(0);
    }

    private static void closeQuietly(EngineResources r) {
        try {
            r.close();
        } catch (RuntimeException expectedOnAFailedHost) {
            // The host failed: its close names it; nothing to check here.
        }
    }

    private static void print(String key, Object value) {
        System.out.println("ffm." + key + "=" + value);
    }
}
