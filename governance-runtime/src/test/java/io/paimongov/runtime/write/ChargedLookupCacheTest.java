package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.TestAllocators;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookup caches are charged page by page as they keep pages, given back as their readers drop
 * them, and hand out pages that do not fit without keeping them; the caches of one write share one
 * bound and never evict one another's pages. Expected charges are the page sizes the test's reader
 * returns.
 */
class ChargedLookupCacheTest {

    private static final int PAGE = 1000;
    private static final Path FILE = new Path("/lookup/file");

    @TempDir java.nio.file.Path dir;

    private final MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 10 * PAGE));
    private final MemoryReservation charge = budget.newReservation("lookup cache");
    private final List<Integer> reads = new ArrayList<>();
    private final List<CacheKey> removed = new ArrayList<>();

    /** A cache of its own under a bound of {@code maxBytes}. */
    private ChargedLookupCache cache(long maxBytes) {
        return new ChargedLookupCache(new ChargedLookupCache.Bound(MemorySize.ofBytes(maxBytes), 0, charge));
    }

    private MemorySegment page(ChargedLookupCache cache, int position) {
        return page(cache, FILE, position, false);
    }

    private MemorySegment page(ChargedLookupCache cache, Path file, int position, boolean index) {
        return cache.getPage(CacheKey.forPosition(file, position, PAGE, index), key -> {
            reads.add(position);
            byte[] bytes = new byte[PAGE];
            bytes[0] = (byte) position;
            return bytes;
        }, removed::add);
    }

    @Test
    void pagesAreChargedWhenKeptAndOnlyOnce() {
        ChargedLookupCache cache = cache(64 * PAGE);
        assertThat(charge.bytes()).isZero();

        assertThat(page(cache, 1).get(0)).isEqualTo((byte) 1);
        assertThat(page(cache, 2).get(0)).isEqualTo((byte) 2);
        assertThat(page(cache, 1).get(0)).isEqualTo((byte) 1);

        assertThat(reads).containsExactly(1, 2);
        assertThat(charge.bytes()).isEqualTo(2L * PAGE);
    }

    @Test
    void anInvalidatedPageGivesItsChargeBackAndTellsPaimonsCallback() {
        ChargedLookupCache cache = cache(64 * PAGE);
        page(cache, 1);
        page(cache, 2);

        cache.invalidPage(CacheKey.forPosition(FILE, 1, PAGE, false));

        assertThat(charge.bytes()).isEqualTo(PAGE);
        assertThat(removed).containsExactly(CacheKey.forPosition(FILE, 1, PAGE, false));
    }

    @Test
    void aPageThatCannotBeChargedIsHandedOutUncachedReadAgainNextTimeAndItsReaderToldAtTheNextUse() {
        ChargedLookupCache cache = cache(64 * PAGE);
        MemoryReservation others = budget.newReservation("write buffer");
        assertThat(others.tryGrow(9L * PAGE + 1)).isTrue(); // less than a page left

        assertThat(page(cache, 3).get(0)).isEqualTo((byte) 3);
        // The reader keeps the page until it is told that the page left: not before the next use.
        assertThat(removed).isEmpty();
        assertThat(page(cache, 4).get(0)).isEqualTo((byte) 4);
        assertThat(removed).containsExactly(CacheKey.forPosition(FILE, 3, PAGE, false));
        assertThat(page(cache, 3).get(0)).isEqualTo((byte) 3);

        assertThat(reads).containsExactly(3, 4, 3);
        assertThat(charge.bytes()).isZero();
        assertThat(removed).containsExactly(CacheKey.forPosition(FILE, 3, PAGE, false), CacheKey.forPosition(FILE, 4, PAGE, false));
    }

    @Test
    void anEvictionAfterTheWriteClosedTheReservationChangesNothing() {
        ChargedLookupCache cache = cache(64 * PAGE);
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
    void aFullCacheDropsItsLeastRecentlyUsedPageForANewOne() {
        ChargedLookupCache cache = cache(2L * PAGE);
        page(cache, 1);
        page(cache, 2);
        page(cache, 3); // drops 1
        page(cache, 2); // a use of 2: 3 is now the least recently used
        page(cache, 1); // drops 3

        assertThat(reads).containsExactly(1, 2, 3, 1);
        assertThat(removed).containsExactly(key(1), key(3));
        assertThat(charge.bytes()).isEqualTo(2L * PAGE);
    }

    /** Index and data pages alike when the bound has one pool (high-priority ratio 0). */
    @ParameterizedTest(name = "index pages: {0}")
    @ValueSource(booleans = {false, true})
    void aCacheMakesRoomAmongItsOwnPagesOnlyAndEachKeepsItsFairShare(boolean index) {
        ChargedLookupCache.Bound bound = new ChargedLookupCache.Bound(MemorySize.ofBytes(4L * PAGE), 0, charge);
        ChargedLookupCache bucket0 = new ChargedLookupCache(bound);
        ChargedLookupCache bucket1 = new ChargedLookupCache(bound);
        List<CacheKey> removed0 = new ArrayList<>();
        List<CacheKey> removed1 = new ArrayList<>();
        Path other = new Path("/lookup/other");
        for (int p = 1; p <= 4; p++) {
            load(bucket0, FILE, p, index, removed0);
        }
        assertThat(bound.bytes()).as("bucket 0 filled the bound").isEqualTo(4L * PAGE);

        // Bucket 1 comes to a full bound: it keeps up to its share (4 pages over 2 caches), then drops its own.
        for (int p = 1; p <= 3; p++) {
            load(bucket1, other, p, index, removed1);
        }
        assertThat(removed0).as("nothing of bucket 0 dropped for bucket 1").isEmpty();
        assertThat(removed1).containsExactly(CacheKey.forPosition(other, 1, PAGE, index));
        assertThat(bound.bytes()).isEqualTo(6L * PAGE);

        // Bucket 0, above its share, drops its own pages until the new one fits the bound.
        load(bucket0, FILE, 5, index, removed0);
        assertThat(removed0).containsExactly(CacheKey.forPosition(FILE, 1, PAGE, index), CacheKey.forPosition(FILE, 2, PAGE, index),
                CacheKey.forPosition(FILE, 3, PAGE, index));
        assertThat(removed1).hasSize(1);
        assertThat(bound.bytes()).isEqualTo(4L * PAGE);
        assertThat(charge.bytes()).isEqualTo(4L * PAGE);
    }

    @Test
    void indexPagesHaveTheHighPriorityShareOfTheBoundAndDataPagesTheRest() {
        // 4 pages, a quarter for index pages: one index page, three data pages.
        ChargedLookupCache cache = new ChargedLookupCache(new ChargedLookupCache.Bound(MemorySize.ofBytes(4L * PAGE), 0.25, charge));
        for (int p = 1; p <= 2; p++) {
            page(cache, FILE, p, true);
        }
        for (int p = 3; p <= 6; p++) {
            page(cache, FILE, p, false);
        }
        // Index page 2 took index page 1's room; data page 6 took data page 3's.
        assertThat(removed).containsExactly(CacheKey.forPosition(FILE, 1, PAGE, true), key(3));
        assertThat(charge.bytes()).isEqualTo(4L * PAGE);
    }

    private static CacheKey key(int position) {
        return CacheKey.forPosition(FILE, position, PAGE, false);
    }

    private void load(ChargedLookupCache cache, Path file, int position, boolean index, List<CacheKey> removedHere) {
        cache.getPage(CacheKey.forPosition(file, position, PAGE, index), key -> new byte[PAGE], removedHere::add);
    }

    @Test
    void aWriteThatIsNotPaimonsKeyValueWriteKeepsItsCache() throws Exception {
        FileStoreTable table = deletionVectorTable();
        assertThat(BucketLookupCaches.install(null, table.coreOptions(), charge)).isFalse();
    }

    /** Writes keys 0, step, 2 x step... below 2,000 with {@code prefix}, through a write with the charged cache. */
    private void commit(FileStoreTable table, Map<Integer, String> model, int from, int step, String prefix) throws Exception {
        List<CommitMessage> messages;
        try (IOManager io = IOManager.create(dir.resolve("io").toString());
                TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            write.withIOManager(io);
            assertThat(BucketLookupCaches.install(write.getWrite(), table.coreOptions(), charge)).isTrue();
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
