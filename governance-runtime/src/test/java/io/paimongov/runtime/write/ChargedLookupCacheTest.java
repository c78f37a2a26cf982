package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.memory.TestAllocators;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.cache.CacheKey;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookup cache is charged page by page as Paimon's cache keeps pages, given back as it drops
 * them, and hands out pages it cannot charge without keeping them. Expected charges are the page
 * sizes the test's reader returns.
 */
class ChargedLookupCacheTest {

    private static final int PAGE = 1000;
    private static final Path FILE = new Path("/lookup/file");

    @TempDir java.nio.file.Path dir;

    private final MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 10 * PAGE));
    private final MemoryReservation charge = budget.newReservation("lookup cache");
    private final List<Integer> reads = new ArrayList<>();
    private final List<CacheKey> removed = new ArrayList<>();

    private MemorySegment page(ChargedLookupCache cache, int position) {
        return cache.getPage(CacheKey.forPosition(FILE, position, PAGE, false), key -> {
            reads.add(position);
            byte[] bytes = new byte[PAGE];
            bytes[0] = (byte) position;
            return bytes;
        }, removed::add);
    }

    @Test
    void pagesAreChargedWhenKeptAndOnlyOnce() {
        ChargedLookupCache cache = new ChargedLookupCache(MemorySize.ofKibiBytes(64), 0, charge);
        assertThat(charge.bytes()).isZero();

        assertThat(page(cache, 1).get(0)).isEqualTo((byte) 1);
        assertThat(page(cache, 2).get(0)).isEqualTo((byte) 2);
        assertThat(page(cache, 1).get(0)).isEqualTo((byte) 1);

        assertThat(reads).containsExactly(1, 2);
        assertThat(charge.bytes()).isEqualTo(2L * PAGE);
    }

    @Test
    void anInvalidatedPageGivesItsChargeBackAndTellsPaimonsCallback() {
        ChargedLookupCache cache = new ChargedLookupCache(MemorySize.ofKibiBytes(64), 0, charge);
        page(cache, 1);
        page(cache, 2);

        cache.invalidPage(CacheKey.forPosition(FILE, 1, PAGE, false));

        assertThat(charge.bytes()).isEqualTo(PAGE);
        assertThat(removed).containsExactly(CacheKey.forPosition(FILE, 1, PAGE, false));
    }

    @Test
    void aPageThatCannotBeChargedIsHandedOutUncachedAndReadAgainNextTime() {
        ChargedLookupCache cache = new ChargedLookupCache(MemorySize.ofKibiBytes(64), 0, charge);
        MemoryReservation others = budget.newReservation("write buffer");
        assertThat(others.tryGrow(9L * PAGE + 1)).isTrue(); // less than a page left

        assertThat(page(cache, 3).get(0)).isEqualTo((byte) 3);
        assertThat(page(cache, 3).get(0)).isEqualTo((byte) 3);

        assertThat(reads).containsExactly(3, 3);
        assertThat(charge.bytes()).isZero();
        assertThat(removed).isEmpty();
    }

    @Test
    void anEvictionAfterTheWriteClosedTheReservationChangesNothing() {
        ChargedLookupCache cache = new ChargedLookupCache(MemorySize.ofKibiBytes(64), 0, charge);
        page(cache, 1);
        charge.close();

        cache.invalidPage(CacheKey.forPosition(FILE, 1, PAGE, false));

        assertThat(removed).hasSize(1);
        assertThat(budget.reservedBytes()).isZero();
    }

    @Test
    void aDeletionVectorWriteLooksItsKeysUpThroughTheChargedCache() throws Exception {
        FileStoreTable table = deletionVectorTable();
        Map<Integer, String> model = new TreeMap<>();
        commit(table, model, 0, 1, "first-");
        assertThat(budget.peakBytes()).as("a write into an empty table looks nothing up").isZero();

        // The second write's flush compacts its level-0 file with a lookup of its keys in the first one.
        commit(table, model, 0, 3, "second-");

        assertThat(budget.peakBytes()).as("lookup pages charged while the write ran").isPositive()
                .isLessThanOrEqualTo(table.coreOptions().lookupCacheMaxMemory().getBytes());
        assertThat(charge.bytes()).as("every page given back as Paimon dropped it").isZero();
        assertThat(read(table)).isEqualTo(model);
    }

    @Test
    void aWriteThatIsNotPaimonsMemoryWriteKeepsItsCache() {
        assertThat(ChargedLookupCache.install(null, MemorySize.ofKibiBytes(64), 0, charge)).isFalse();
    }

    /** Writes keys 0, step, 2 x step... below 2,000 with {@code prefix}, through a write with the charged cache. */
    private void commit(FileStoreTable table, Map<Integer, String> model, int from, int step, String prefix) throws Exception {
        List<CommitMessage> messages;
        try (IOManager io = IOManager.create(dir.resolve("io").toString());
                TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            write.withIOManager(io);
            assertThat(ChargedLookupCache.install(write.getWrite(), table.coreOptions().lookupCacheMaxMemory(), 0, charge)).isTrue();
            for (int k = from; k < 2_000; k += step) {
                write.write(GenericRow.of(k, BinaryString.fromString(prefix + k)), 0);
                model.put(k, prefix + k);
            }
            messages = write.prepareCommit();
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
    }

    private FileStoreTable deletionVectorTable() throws Exception {
        return KeyValueTables.create(dir, KeyValueTables.oneBucketKeyValue().option("deletion-vectors.enabled", "true").build());
    }

    private static Map<Integer, String> read(FileStoreTable table) throws Exception {
        return KeyValueTables.read(table, 1);
    }
}
