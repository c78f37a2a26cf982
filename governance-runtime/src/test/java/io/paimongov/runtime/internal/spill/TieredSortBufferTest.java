package io.paimongov.runtime.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.TestAllocators;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.MutableObjectIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tiered sort buffer against a reference model: the same rows sorted in memory by a plain Java
 * comparator on (k, seq). Real parts: Paimon's in-memory sort buffer and spill channels, the
 * governed page pool over a bounded allocator of a few 4 KiB pages, the governed {@link
 * GovernedIOManager} (whose own byte count is a second witness of what was spilled). The bound on
 * rewriting is the tier arithmetic's: a row is written once by its spill and once more per tier it
 * climbs, so the bytes written are at most the input's times (1 + ceil(log_F(runs))), where the
 * input's bytes come from the model (each row's binary size plus its 4-byte length).
 */
class TieredSortBufferTest {

    private static final int PAGE = 4096;
    private static final long PER_CHANNEL = 1000;
    private static final RowType ROW = RowType.of(DataTypes.INT().notNull(), DataTypes.BIGINT().notNull(), DataTypes.STRING());
    private static final int[] KEY = {0, 1};
    private static final CompressOptions ZSTD = new CompressOptions("zstd", 1);
    private static final CompressOptions LZ4 = new CompressOptions("lz4", 1);

    @TempDir Path root;

    private final MemoryBudget channelBudget = new MemoryBudget(TestAllocators.bounded(PAGE, 1 << 30));
    private GovernedIOManager io;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        if (io != null) {
            io.close();
        }
    }

    private TieredSortBuffer buffer(int pages, int fanIn, MemoryReservation reservation) {
        return buffer(pages, fanIn, TieredSortBuffer.SMALL_BLOCK, reservation);
    }

    /** A buffer as the governed write makes them: lz4 runs from memory, zstd merged runs. */
    private TieredSortBuffer buffer(int pages, int fanIn, int block, MemoryReservation reservation) {
        return buffer(pages, fanIn, block, LZ4, ZSTD, reservation);
    }

    private TieredSortBuffer buffer(int pages, int fanIn, int block, CompressOptions runs, CompressOptions merged,
            MemoryReservation reservation) {
        return buffer(pages, fanIn, block, runs, merged, reservation, SpillScope.open(SpillLocations.of(List.of(root), Long.MAX_VALUE), "t"));
    }

    private TieredSortBuffer buffer(int pages, int fanIn, int block, CompressOptions runs, CompressOptions merged,
            MemoryReservation reservation, SpillScope scope) {
        io = new GovernedIOManager(scope, Long.MAX_VALUE, () -> {});
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(TestAllocators.bounded(PAGE, (long) pages * PAGE)), () -> {});
        TieredSortBuffer buffer = new TieredSortBuffer(ROW, KEY, pool, io, fanIn, runs, merged, block, reservation, PER_CHANNEL);
        toClose.add(pool);
        toClose.add(0, buffer);
        return buffer;
    }

    private static List<GenericRow> rows(long seed, int count, int keys) {
        SplittableRandom random = new SplittableRandom(seed);
        List<GenericRow> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            char[] v = new char[random.nextInt(0, 120)];
            for (int j = 0; j < v.length; j++) {
                v[j] = (char) ('a' + random.nextInt(26));
            }
            rows.add(GenericRow.of(random.nextInt(keys), (long) i, BinaryString.fromString(new String(v))));
        }
        return rows;
    }

    private static List<String> model(List<GenericRow> rows) {
        List<GenericRow> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.<GenericRow>comparingInt(r -> r.getInt(0)).thenComparingLong(r -> r.getLong(1)));
        return sorted.stream().map(TieredSortBufferTest::text).toList();
    }

    private static String text(org.apache.paimon.data.InternalRow r) {
        return r.getInt(0) + "/" + r.getLong(1) + "/" + r.getString(2);
    }

    private static List<String> read(TieredSortBuffer buffer) throws Exception {
        List<String> out = new ArrayList<>();
        MutableObjectIterator<BinaryRow> it = buffer.sortedIterator();
        BinaryRow reuse = new BinaryRow(ROW.getFieldCount());
        // next(reuse), as Paimon's write buffer reads: the in-memory iterator supports only that.
        for (BinaryRow r = it.next(reuse); r != null; r = it.next(reuse)) {
            out.add(text(r));
        }
        return out;
    }

    /** Bytes of the rows as spilled: binary row plus its 4-byte length, computed from the model's rows. */
    private static long inputBytes(List<GenericRow> rows) {
        InternalRowSerializer serializer = new InternalRowSerializer(ROW);
        return rows.stream().mapToLong(r -> serializer.toBinaryRow(r).getSizeInBytes() + 4L).sum();
    }

    private static int ceilLog(long n, int base) {
        int levels = 0;
        for (long reach = 1; reach < n; reach *= base) {
            levels++;
        }
        return levels;
    }

    @ParameterizedTest(name = "{0} pages, fan-in {1}, {2} rows, {3}-byte blocks")
    @CsvSource({"3, 2, 6000, 4096", "4, 3, 20000, 4096", "8, 8, 20000, 4096", "5, 2, 30000, 4096", "16, 4, 40000, 4096",
            "4, 3, 20000, 8192", "16, 4, 40000, 8192"})
    void sortsLikeTheModelAndRewritesEachRowOncePerTier(int pages, int fanIn, int count, int block) throws Exception {
        List<GenericRow> rows = rows(pages * 31L + fanIn, count, count / 3);
        TieredSortBuffer buffer = buffer(pages, fanIn, block, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows) {
            assertThat(buffer.write(r)).isTrue();
        }
        assertThat(buffer.size()).isEqualTo(count);

        assertThat(read(buffer)).isEqualTo(model(rows));

        SpillStats s = buffer.stats();
        long input = inputBytes(rows);
        int levels = ceilLog(s.runs(), fanIn);
        assertThat(s.runs()).as("a tiny buffer spills many runs").isGreaterThan(4L * fanIn);
        assertThat(s.spilledRowBytes()).as("rows spilled from memory, each at most once").isLessThanOrEqualTo(input);
        assertThat(s.rowBytes()).as("bytes written, runs and merges: at most once per tier")
                .isLessThanOrEqualTo(input * (1 + levels));
        assertThat(s.tiers()).isLessThanOrEqualTo(1 + levels);
        assertThat(s.peakOpenChannels()).as("open channels never pass the fan-in plus a merge's writer").isLessThanOrEqualTo(fanIn + 1);
        assertThat(s.spillBytes()).as("the governed IOManager counted the same bytes").isEqualTo(io.spillBytes());
        assertThat(s.runs()).as("spill runs as the IOManager counted them").isEqualTo(io.spillRuns());
    }

    /**
     * The buffer names its runs where the spill scope was made, not where it was planned when the
     * buffer was made: with the root chosen at open gone by the first spill, the scope is made under
     * the next root and the runs go there.
     */
    @Test
    void runsGoWhereTheScopeWasMadeWhenTheRootChosenAtOpenRefusedAtTheFirstSpill() throws Exception {
        Path first = Files.createDirectory(root.resolve("first"));
        Path second = Files.createDirectory(root.resolve("second"));
        SpillScope scope = SpillScope.open(SpillLocations.of(List.of(first, second), Long.MAX_VALUE), "t");
        TieredSortBuffer buffer = buffer(4, 3, TieredSortBuffer.SMALL_BLOCK, LZ4, ZSTD, channelBudget.newReservation("spill channels"), scope);
        Files.delete(first);
        List<GenericRow> rows = rows(17, 20000, 5000);
        for (GenericRow r : rows) {
            assertThat(buffer.write(r)).isTrue();
        }
        assertThat(read(buffer)).isEqualTo(model(rows));
        assertThat(buffer.stats().runs()).isPositive().isEqualTo(io.spillRuns());
        assertThat(io.scope().dir().getParent()).isEqualTo(second);
    }

    /**
     * Runs from memory are written with the run codec and merged runs with the merge codec, and
     * each is read back with its own: the same rows through the same tiers with either codec
     * on either side come out as the model, and the bytes on disk tell which codec wrote what.
     * The rows are spilled alike whatever the codecs (same pages, same rows), so the runs from
     * memory are the same bytes before compression in every buffer below.
     */
    @ParameterizedTest(name = "fan-in {0}, {1} pages")
    @CsvSource({"2, 4", "64, 16"})
    void eachRunIsWrittenAndReadWithItsOwnCodec(int fanIn, int pages) throws Exception {
        List<GenericRow> rows = rows(13, 20000, 5000);
        Map<String, SpillStats> stats = new LinkedHashMap<>();
        for (CompressOptions[] codecs : new CompressOptions[][] {{LZ4, ZSTD}, {ZSTD, LZ4}, {LZ4, LZ4}, {ZSTD, ZSTD}}) {
            TieredSortBuffer buffer = buffer(pages, fanIn, TieredSortBuffer.SMALL_BLOCK, codecs[0], codecs[1],
                    channelBudget.newReservation("spill channels"));
            for (GenericRow r : rows) {
                buffer.write(r);
            }
            assertThat(read(buffer)).as("runs %s, merges %s", codecs[0].compress(), codecs[1].compress()).isEqualTo(model(rows));
            stats.put(codecs[0].compress() + "/" + codecs[1].compress(), buffer.stats());
            buffer.close();
            io.close();
            io = null;
        }
        SpillStats mixed = stats.get("lz4/zstd");
        SpillStats allLz4 = stats.get("lz4/lz4");
        SpillStats allZstd = stats.get("zstd/zstd");
        SpillStats reversed = stats.get("zstd/lz4");
        assertThat(mixed.runs()).isGreaterThan(8);
        if (fanIn == 64) {
            // Fewer runs than the fan-in: nothing is merged, the final read takes the runs as written.
            assertThat(mixed.merges()).isZero();
            assertThat(mixed.spillBytes()).isEqualTo(allLz4.spillBytes()).isGreaterThan(allZstd.spillBytes());
            assertThat(reversed.spillBytes()).isEqualTo(allZstd.spillBytes());
        } else {
            // Merged runs too: the runs from memory are those of the one-codec buffer of the run
            // codec, and zstd merges write fewer bytes than lz4 ones of these text rows.
            assertThat(mixed.merges()).isPositive();
            assertThat(mixed.spillBytes()).isLessThan(allLz4.spillBytes()).isGreaterThan(allZstd.spillBytes());
            assertThat(reversed.spillBytes()).isGreaterThan(allZstd.spillBytes()).isLessThan(allLz4.spillBytes());
        }
    }

    /**
     * Paimon's write buffer reads the sorted rows into two rows it alternates, holding the one read
     * before while it reads the next (to compare keys and merge): a row handed out must not change
     * while the caller holds it, whichever stream the merge takes the next row from. Rows of
     * several lengths, so that a reuse row is sometimes too small and sometimes large enough.
     */
    @Test
    void aRowHandedOutStaysAsItWasWhileTheCallerReadsTheNext() throws Exception {
        List<GenericRow> rows = rows(19, 6000, 800);
        TieredSortBuffer buffer = buffer(8, 4, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows) {
            buffer.write(r);
        }
        assertThat(buffer.stats().runs()).isGreaterThan(4);
        MutableObjectIterator<BinaryRow> it = buffer.sortedIterator();
        BinaryRow[] reuse = {new BinaryRow(ROW.getFieldCount()), new BinaryRow(ROW.getFieldCount())};
        List<String> out = new ArrayList<>();
        BinaryRow previous = null;
        String previousText = null;
        for (int i = 0; ; i++) {
            BinaryRow r = it.next(reuse[i % 2]);
            if (previous != null) {
                assertThat(text(previous)).as("row %d after reading the next", i - 1).isEqualTo(previousText);
            }
            if (r == null) {
                break;
            }
            previous = r;
            previousText = text(r);
            out.add(previousText);
        }
        assertThat(out).isEqualTo(model(rows));
    }

    /**
     * The runs the sorted read merges to come down to the fan-in are read once, as runs from
     * memory are, and take the run codec; only a full tier's merge takes the merge codec. With
     * fewer runs than twice the fan-in no tier fills, so a buffer of lz4 runs and zstd merges
     * writes exactly the bytes of an all-lz4 buffer although its final read merges; the model
     * says the rows still come out sorted. The runs are counted first by a buffer that merges
     * nothing (the same pages and rows spill alike whatever the fan-in).
     */
    @Test
    void theFinalReadsMergesTakeTheRunCodec() throws Exception {
        List<GenericRow> rows = rows(17, 20000, 5000);
        long runs = spillAndRead(rows, 64, LZ4, ZSTD).runs();
        assertThat(runs).as("runs of 16 pages").isBetween(8L, 63L);
        int fanIn = (int) runs - 2;

        SpillStats mixed = spillAndRead(rows, fanIn, LZ4, ZSTD);
        SpillStats allLz4 = spillAndRead(rows, fanIn, LZ4, LZ4);
        SpillStats allZstd = spillAndRead(rows, fanIn, ZSTD, ZSTD);
        assertThat(mixed.merges()).as("one merge, the final read's: no tier filled").isEqualTo(1);
        assertThat(mixed.spillBytes()).isEqualTo(allLz4.spillBytes()).isGreaterThan(allZstd.spillBytes());
    }

    /** Spills {@code rows} through a 16-page buffer, checks its sorted read against the model, returns its stats. */
    private SpillStats spillAndRead(List<GenericRow> rows, int fanIn, CompressOptions runs, CompressOptions merged)
            throws Exception {
        TieredSortBuffer buffer = buffer(16, fanIn, TieredSortBuffer.SMALL_BLOCK, runs, merged, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows) {
            buffer.write(r);
        }
        assertThat(read(buffer)).as("fan-in %d, runs %s, merges %s", fanIn, runs.compress(), merged.compress()).isEqualTo(model(rows));
        SpillStats stats = buffer.stats();
        buffer.close();
        io.close();
        io = null;
        return stats;
    }

    @Test
    void aFanInOfTwoStaysLinearWhereMergingEveryRunWouldNot() throws Exception {
        List<GenericRow> rows = rows(7, 30000, 10000);
        TieredSortBuffer buffer = buffer(3, 2, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows) {
            buffer.write(r);
        }
        assertThat(read(buffer)).isEqualTo(model(rows));
        SpillStats s = buffer.stats();
        long input = inputBytes(rows);
        // Merging all runs whenever two are on disk rewrites the first run at every later spill:
        // about runs / 2 times the input in all. Tiers stay within 1 + log2(runs).
        assertThat(s.runs()).isGreaterThan(40);
        assertThat(s.rowBytes()).isLessThanOrEqualTo(input * (1 + ceilLog(s.runs(), 2)))
                .isLessThan(input * s.runs() / 4);
    }

    @Test
    void manyTinyFlushesAreReadThroughAtMostTheFanIn() throws Exception {
        List<GenericRow> rows = rows(11, 3000, 500);
        TieredSortBuffer buffer = buffer(64, 4, channelBudget.newReservation("spill channels"));
        for (int i = 0; i < rows.size(); i++) {
            buffer.write(rows.get(i));
            if (i % 10 == 9) {
                assertThat(buffer.flushMemory()).isTrue();
            }
        }
        assertThat(read(buffer)).isEqualTo(model(rows));
        assertThat(buffer.stats().runs()).isEqualTo(300);
        assertThat(buffer.stats().peakOpenChannels()).isLessThanOrEqualTo(5);
    }

    @Test
    void whatFitsInMemoryNeverTouchesTheDisk() throws Exception {
        List<GenericRow> rows = rows(3, 200, 50);
        TieredSortBuffer buffer = buffer(64, 4, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows) {
            buffer.write(r);
        }
        assertThat(read(buffer)).isEqualTo(model(rows));
        assertThat(buffer.stats()).isEqualTo(new SpillStats(0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(io.spillFiles()).isZero();
    }

    @Test
    void clearDropsRowsAndDeletesEveryRunAndTheBufferIsReusable() throws Exception {
        TieredSortBuffer buffer = buffer(3, 3, channelBudget.newReservation("spill channels"));
        for (GenericRow r : rows(5, 5000, 1000)) {
            buffer.write(r);
        }
        MutableObjectIterator<BinaryRow> open = buffer.sortedIterator();
        assertThat(open.next(new BinaryRow(ROW.getFieldCount()))).isNotNull();
        assertThat(io.filesLeft()).isPositive();
        buffer.clear();
        assertThat(io.filesLeft()).isZero();
        assertThat(buffer.size()).isZero();
        assertThat(buffer.getOccupancy()).isZero();

        List<GenericRow> again = rows(6, 4000, 1000);
        for (GenericRow r : again) {
            buffer.write(r);
        }
        assertThat(read(buffer)).isEqualTo(model(again));
    }

    @Test
    void theChannelReservationIsHeldWhileOpenAndGivenBackAtClose() {
        MemoryReservation reservation = channelBudget.newReservation("spill channels");
        TieredSortBuffer buffer = buffer(8, 6, reservation);
        assertThat(reservation.bytes()).isEqualTo(7 * PER_CHANNEL);
        buffer.close();
        buffer.close();
        assertThat(reservation.bytes()).isZero();
    }

    @Test
    void aReservationThatCannotHoldTheChannelsFailsTheConstructorAndHoldsNothing() {
        MemoryBudget small = new MemoryBudget(TestAllocators.bounded(PAGE, 4 * PER_CHANNEL));
        MemoryReservation reservation = small.newReservation("spill channels");
        assertThatThrownBy(() -> buffer(8, 4, reservation))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("'spill channels' asked for 5000 bytes");
        assertThat(reservation.bytes()).isZero();
    }

    @Test
    void badArgumentsAreRefusedWithTheirValues() {
        MemoryReservation reservation = channelBudget.newReservation("spill channels");
        io = new GovernedIOManager(SpillScope.create(SpillLocations.of(List.of(root), Long.MAX_VALUE), "t"), Long.MAX_VALUE, () -> {});
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(TestAllocators.bounded(PAGE, 8L * PAGE)), () -> {});
        toClose.add(pool);
        int block = TieredSortBuffer.SMALL_BLOCK;
        assertThatThrownBy(() -> new TieredSortBuffer(ROW, KEY, pool, io, 1, LZ4, ZSTD, block, reservation, PER_CHANNEL))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("fan-in must be at least 2: 1");
        assertThatThrownBy(() -> new TieredSortBuffer(ROW, KEY, pool, io, 4, LZ4, ZSTD, 512, reservation, PER_CHANNEL))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("spill compression block must be at least 1024 bytes: 512");
        CompressOptions none = new CompressOptions("none", 1);
        assertThatThrownBy(() -> new TieredSortBuffer(ROW, KEY, pool, io, 4, none, ZSTD, block, reservation, PER_CHANNEL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spill compression 'none'");
        assertThatThrownBy(() -> new TieredSortBuffer(ROW, KEY, pool, io, 4, LZ4, none, block, reservation, PER_CHANNEL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spill compression 'none'");
        assertThat(reservation.bytes()).isZero();
    }
}
