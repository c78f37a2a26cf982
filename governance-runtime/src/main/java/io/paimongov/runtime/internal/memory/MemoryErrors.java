package io.paimongov.runtime.internal.memory;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import java.util.Comparator;
import java.util.List;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.ResourceExhaustedException.Resource;

/**
 * The errors of memory refused: a {@link MemoryBudget} that refused a request (the budget's numbers,
 * its five largest holders and the remedy, which tells a budget that is spent from an engine that
 * refused although the budget had room, where raising {@link GovernanceOptions#MEMORY_BUDGET} does
 * not help, and from a write whose share of a shared memory the other writes hold), and a {@link
 * MemoryArbiter shared memory} that cannot take a write's share.
 *
 * <p>Stateless; reads the numbers once per error; thread-safe.
 */
final class MemoryErrors {

    private MemoryErrors() {}

    /** The error of a request of {@code bytes} by {@code requester} that {@code budget} refused. */
    static ResourceExhaustedException exhausted(MemoryBudget budget, String requester, long bytes) {
        long reservedNow = budget.reservedBytes();
        long capacityNow = budget.capacityBytes();
        return new ResourceExhaustedException(Resource.MEMORY, requester, bytes, reservedNow, capacityNow, budget.largestHolders(5),
                remedy(budget, capacityNow, reservedNow, bytes));
    }

    /**
     * The error for a request a write needs just to open (its fixed reservations, its first writer):
     * when the budget is short it names {@link GovernanceOptions#MEMORY_BUDGET} and the smallest
     * budget that would have held the request next to what is reserved (for a write in a shared
     * memory, its share); when the engine is short it says so.
     */
    static ResourceExhaustedException tooSmall(MemoryBudget budget, String requester, long bytes) {
        long reservedNow = budget.reservedBytes();
        long capacityNow = budget.capacityBytes();
        String remedy =
                capacityNow - reservedNow >= bytes
                        ? remedy(budget, capacityNow, reservedNow, bytes)
                        : "the budget is too small for this table: raise '" + GovernanceOptions.MEMORY_BUDGET + "' from "
                                + Sizes.format(budget.shareBytes()) + " to at least " + Sizes.format(reservedNow + bytes);
        return new ResourceExhaustedException(
                Resource.MEMORY, requester, bytes, reservedNow, capacityNow, budget.largestHolders(5), remedy);
    }

    /**
     * Why a request of {@code bytes} failed and what helps: the engine refused although the budget
     * had room; the write's share of a shared memory is taken by the other writes; or the budget
     * is spent.
     */
    private static String remedy(MemoryBudget budget, long capacityNow, long reservedNow, long bytes) {
        if (capacityNow - reservedNow >= bytes) {
            return "the write's budget had room, the engine did not (it holds "
                    + Sizes.format(budget.allocator().usedBytes())
                    + " for this write; the rest of its memory is taken by other writes or consumers):"
                    + " give the engine more memory or run fewer writes at once; raising '"
                    + GovernanceOptions.MEMORY_BUDGET + "' does not help";
        }
        PoolMember member = budget.member();
        if (member != null) {
            return "the write's share of shared memory '" + member.pool.name() + "' is " + Sizes.format(member.share)
                    + " and it holds " + Sizes.format(capacityNow) + " now; the other writes hold the rest of the pool's "
                    + Sizes.format(member.pool.poolBytes()) + ": give the write a larger share ('"
                    + GovernanceOptions.MEMORY_BUDGET + "', or its weight in the engine) or the engine more memory";
        }
        return "raise '" + GovernanceOptions.MEMORY_BUDGET + "' (now " + Sizes.format(capacityNow) + ")";
    }

    /**
     * The error of {@code member} joining shared memory {@code name}, whose members' shares,
     * {@code poolBytes} together, leave no room for its share under {@code limitBytes}: the five
     * largest shares are the holders.
     */
    static ResourceExhaustedException shareRefused(
            String name, long limitBytes, long poolBytes, List<PoolMember> members, PoolMember member) {
        List<Holder> shares = members.stream()
                .map(m -> new Holder(m.name, m.share))
                .sorted(Comparator.comparingLong(Holder::bytes).reversed())
                .limit(5)
                .toList();
        return new ResourceExhaustedException(Resource.MEMORY, member.name + " (joining shared memory '" + name + "')",
                member.share, poolBytes, limitBytes, shares,
                "the shares of the writes in shared memory '" + name + "' may add up to " + Sizes.format(limitBytes)
                        + " at most: give the write a smaller share or the engine more memory");
    }
}
