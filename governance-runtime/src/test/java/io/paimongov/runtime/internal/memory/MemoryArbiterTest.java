package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.memory.SharedMemory;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The arbiter by examples: who lends, who is reclaimed, who waits, what the budget's errors and
 * counters say. {@link MemoryArbiterPropertyTest} checks the policy against random members and
 * requests.
 */
class MemoryArbiterTest {

    private static final int PAGE = 4096;
    private static final long MIB = 1 << 20;

    private final SharedMemory pool = SharedMemory.of("slot-1", 4 * MIB);

    private MemoryBudget member(String name, long share, long waitMillis, AtomicBoolean cancelled) {
        return MemoryBudget.member(new BoundedTestAllocator(PAGE, pool.limitBytes()), pool, name, share, waitMillis, cancelled::get);
    }

    private MemoryBudget member(String name, long share) {
        return member(name, share, 0, new AtomicBoolean());
    }

    /** A reclaimer that frees what its budget owes from {@code r}, as an idle write that spills. */
    private static void givesBackFrom(MemoryBudget budget, MemoryReservation r) {
        budget.setReclaimer(bytes -> {
            long give = Math.min(r.bytes(), Math.max(0, budget.owedBytes()));
            r.shrink(give);
            return give;
        });
    }

    @Test
    void aWriteBorrowsWhatAnIdleWriteLeavesUnusedAndGivesItBackWhenThatWriteNeedsItsShare() {
        MemoryBudget heavy = member("heavy", MIB);
        MemoryBudget idle = member("idle", MIB);
        MemoryReservation h = heavy.newReservation("heavy buffer");
        givesBackFrom(heavy, h);

        assertThat(h.tryGrow(MIB + MIB / 2)).as("borrows half a share").isTrue();
        assertThat(heavy.capacityBytes()).isGreaterThanOrEqualTo(MIB + MIB / 2);
        assertThat(heavy.borrowedBytes()).isEqualTo(heavy.capacityBytes() - MIB);
        assertThat(heavy.peakBorrowedBytes()).isGreaterThanOrEqualTo(MIB / 2);
        assertThat(idle.capacityBytes()).as("the idle write lent it").isEqualTo(2 * MIB - heavy.capacityBytes());

        MemoryReservation i = idle.newReservation("idle buffer");
        assertThat(i.tryGrow(MIB)).as("its whole share, back from the borrower").isTrue();

        assertThat(idle.reclaimedByCount()).isEqualTo(1);
        assertThat(idle.reclaimedByBytes()).isPositive();
        assertThat(heavy.reclaimedFromCount()).isEqualTo(1);
        assertThat(heavy.reclaimedFromBytes()).isEqualTo(idle.reclaimedByBytes());
        assertThat(heavy.capacityBytes()).as("lowered to its share").isEqualTo(MIB);
        assertThat(heavy.owedBytes()).as("gave back on the asking thread").isLessThanOrEqualTo(0);
        assertThat(heavy.reservedBytes() + idle.reservedBytes()).isLessThanOrEqualTo(pool.poolBytes());
        assertThat(heavy.capacityBytes() + idle.capacityBytes()).isLessThanOrEqualTo(pool.poolBytes());
    }

    @Test
    void aRequestPastTheShareIsRefusedWhenNothingIsUnusedAndChangesNothing() {
        MemoryBudget a = member("a", MIB);
        MemoryBudget b = member("b", MIB);
        a.newReservation("a").grow(MIB);
        b.newReservation("b").grow(MIB);
        MemoryReservation more = a.newReservation("more");

        assertThat(more.tryGrow(PAGE)).isFalse();
        assertThat(a.reservedBytes()).isEqualTo(MIB);
        assertThat(a.capacityBytes()).isEqualTo(MIB);
        assertThat(b.capacityBytes()).isEqualTo(MIB);
        assertThat(b.reclaimedFromCount()).isZero();
    }

    @Test
    void borrowersAreReclaimedLargestOverShareFirst() {
        MemoryBudget small = member("small borrower", MIB);
        MemoryBudget large = member("large borrower", MIB);
        MemoryBudget asker = member("asker", 2 * MIB);
        // Both borrow from the asker, which uses nothing yet: 256 KiB and 512 KiB over their shares.
        small.newReservation("s").grow(MIB + MIB / 4);
        large.newReservation("l").grow(MIB + MIB / 2);
        assertThat(asker.capacityBytes()).isEqualTo(2 * MIB - MIB / 4 - MIB / 2);
        MemoryReservation a = asker.newReservation("a");

        a.grow(asker.capacityBytes() + 300 * 1024);

        assertThat(large.reclaimedFromBytes()).as("the largest over its share gives first").isEqualTo(300 * 1024);
        assertThat(small.reclaimedFromCount()).isZero();
        assertThat(large.borrowedBytes()).isEqualTo(212 * 1024);

        // Now the smaller borrower is the larger one over its share: it gives all of it first.
        a.grow(400 * 1024);

        assertThat(small.reclaimedFromBytes()).isEqualTo(256 * 1024);
        assertThat(small.capacityBytes()).isEqualTo(MIB);
        assertThat(large.reclaimedFromBytes()).isEqualTo((300 + 144) * 1024);
        assertThat(asker.reclaimedByCount()).isEqualTo(2);
        assertThat(asker.reclaimedByBytes()).isEqualTo(700 * 1024);
        assertThat(small.capacityBytes() + large.capacityBytes() + asker.capacityBytes()).isEqualTo(pool.poolBytes());
    }

    @Test
    void anAskerWaitsForABusyBorrowerToGiveBackAtItsOwnSafePoint() throws Exception {
        MemoryBudget heavy = member("heavy", MIB);
        MemoryBudget light = member("light", MIB, 30_000, new AtomicBoolean());
        MemoryReservation h = heavy.newReservation("heavy buffer");
        h.grow(2 * MIB - PAGE);
        // Busy: its reclaimer frees nothing from another thread; the write gives back on its own thread.
        AtomicBoolean gaveBack = new AtomicBoolean();
        CountDownLatch lowered = new CountDownLatch(1);
        Thread borrower = new Thread(() -> {
            while (heavy.owedBytes() <= 0) {
                Thread.onSpinWait();
            }
            lowered.countDown();
            gaveBack.set(true);
            h.shrink(heavy.owedBytes());
        });
        borrower.start();

        assertThat(light.newReservation("light").tryGrow(MIB / 2)).isTrue();

        assertThat(lowered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(gaveBack).as("the asker went on only after the borrower gave back").isTrue();
        assertThat(heavy.reservedBytes() + light.reservedBytes()).isLessThanOrEqualTo(pool.poolBytes());
        borrower.join();
    }

    @Test
    void aCancelledAskerDoesNotWait() {
        MemoryBudget heavy = member("heavy", MIB);
        AtomicBoolean cancelled = new AtomicBoolean(true);
        MemoryBudget light = member("light", MIB, 60_000, cancelled);
        heavy.newReservation("heavy buffer").grow(2 * MIB - PAGE);

        long start = System.nanoTime();
        assertThat(light.newReservation("light").tryGrow(MIB / 2)).isTrue();

        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("not the 60 s wait").isLessThan(30);
        assertThat(heavy.owedBytes()).as("the borrower still owes; it gives back at its next row").isPositive();
    }

    @Test
    void aLeavingLenderMakesTheBorrowersFitTheSmallerPool() {
        MemoryBudget heavy = member("heavy", MIB);
        MemoryBudget lender = member("lender", MIB);
        MemoryReservation h = heavy.newReservation("heavy buffer");
        givesBackFrom(heavy, h);
        h.grow(MIB + MIB / 2);

        lender.leavePool();

        assertThat(pool.poolBytes()).isEqualTo(MIB);
        assertThat(pool.memberCount()).isEqualTo(1);
        assertThat(heavy.capacityBytes()).isEqualTo(MIB);
        assertThat(heavy.reservedBytes()).as("asked to give back, idle, it did").isLessThanOrEqualTo(MIB);
        assertThat(heavy.reclaimedFromCount()).as("no write reclaimed: the pool shrank").isZero();
        lender.leavePool();
        assertThat(pool.poolBytes()).as("leaving twice changes nothing").isEqualTo(MIB);
    }

    @Test
    void aShareTheLimitCannotHoldIsRefusedNamingTheWriteAndTheShares() {
        member("a", 3 * MIB);
        assertThatThrownBy(() -> member("b", 2 * MIB))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessage("memory exhausted: 'write 'b' (joining shared memory 'slot-1')' asked for 2097152 bytes;"
                        + " 3145728 of 4194304 bytes are reserved, 1048576 free; largest holders: write 'a'=3145728;"
                        + " the shares of the writes in shared memory 'slot-1' may add up to 4m at most: give the write"
                        + " a smaller share or the engine more memory");
        assertThat(pool.memberCount()).isEqualTo(1);
        assertThat(pool.poolBytes()).isEqualTo(3 * MIB);
    }

    @Test
    void aRefusedGrowNamesTheShareAndThePool() {
        MemoryBudget a = member("a", MIB);
        MemoryBudget b = member("b", MIB);
        a.newReservation("a buffer").grow(MIB);
        b.newReservation("b buffer").grow(MIB);

        assertThatThrownBy(() -> a.newReservation("writer[bucket=1]").grow(PAGE))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessage("memory exhausted: 'writer[bucket=1]' asked for 4096 bytes; 1048576 of 1048576 bytes are"
                        + " reserved, 0 free; largest holders: a buffer=1048576; the write's share of shared memory"
                        + " 'slot-1' is 1m and it holds 1m now; the other writes hold the rest of the pool's 2m: give the"
                        + " write a larger share ('governance.memory.budget', or its weight in the engine) or the engine"
                        + " more memory");
    }

    @Test
    void aBudgetOutsideAPoolReportsItsBudgetAsItsShareAndNothingBorrowed() {
        MemoryBudget alone = new MemoryBudget(new BoundedTestAllocator(PAGE, MIB));
        alone.newReservation("r").grow(MIB / 2);

        assertThat(alone.shareBytes()).isEqualTo(MIB);
        assertThat(alone.borrowedBytes()).isZero();
        assertThat(alone.peakBorrowedBytes()).isZero();
        assertThat(alone.reclaimedByCount()).isZero();
        assertThat(alone.owedBytes()).isNegative();
        assertThat(alone.takeReclaimRequest()).isFalse();
    }

    @Test
    void theEnginesRequestsCountAsReclaimedFromTheWrite() {
        MemoryBudget alone = new MemoryBudget(new BoundedTestAllocator(PAGE, MIB));
        MemoryReservation r = alone.newReservation("r");
        r.grow(MIB / 2);
        alone.setReclaimer(bytes -> {
            r.shrink(bytes);
            return bytes;
        });

        assertThat(alone.relieve(PAGE)).isEqualTo(PAGE);

        assertThat(alone.reclaimedFromCount()).isEqualTo(1);
        assertThat(alone.reclaimedFromBytes()).isEqualTo(PAGE);
    }
}
