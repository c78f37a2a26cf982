package io.paimongov.runtime.internal.memory;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accounting of one engine's memory shared by the governed writes that join it, by a stated
 * policy instead of first come: each write is guaranteed its share, may borrow what the others leave
 * unused, and a write that needs its share back makes the borrowers give it back
 * (docs/memory-sharing.md). Its one subclass is {@code io.paimongov.runtime.memory.SharedMemory},
 * the handle an engine integration makes ({@code SharedMemory.of}) and puts in each write's {@link
 * io.paimongov.spi.EngineEnvironment}; the runtime takes the handle from there as this class, and a
 * write's {@link MemoryBudget} joins it ({@link MemoryBudget#member}). Why a superclass rather than
 * a field of the handle: the handle is public and this accounting is the runtime's own. As a
 * subclass the handle needs no public method that hands its accounting to the runtime, and this
 * package never imports the public one (which would make a package cycle). Everything here but the
 * four accessors is package-private; the constructor is protected: only the handle extends it.
 *
 * <p>How it works (Velox's arbitrator, run at the runtime's safe points). The pool is the sum of
 * the members' shares, at most {@link #limitBytes()}. Each member's {@link MemoryBudget} has a
 * capacity the pool moves, starting at the member's share, and the capacities never add up to more
 * than the pool. A budget whose reservation does not fit in its capacity asks the pool for more
 * ({@link #reserve}), which gives it, in this order:
 *
 * <ol>
 *   <li>capacity no member holds (what a borrower held above its share when it left);
 *   <li>capacity other members hold and do not use (above what they reserve), most unused first:
 *       lent, which costs the lender nothing now;
 *   <li>only for a request that keeps the asker within its share: capacity of borrowers (members
 *       above their share), largest over-share first, each lowered toward its share: reclaimed.
 * </ol>
 *
 * A request that does not fit is refused and nothing moves; the asker then spills or flushes as a
 * write outside a pool does. A grant is at least {@value #GRANT_SHARE}th of the asker's share (and
 * within its ceiling, the allocator's capacity), so a growing write asks about {@value
 * #GRANT_SHARE} times per share rather than once per page.
 *
 * <p>Debts. A reclaimed borrower may hold more than its new capacity: it owes the difference and
 * gives it back, on the asking thread when its write is idle (its {@link Reclaimer}, which flushes
 * only when it gets the write's call lock at once), else on its own writing thread at its next call
 * ({@link MemoryBudget#owedBytes()}) or as soon as its write buffer hands pages back ({@link
 * GovernedSegmentPool#returnAll}). While any member owes, capacity is not all in the engine, so
 * every reservation of a member comes here ({@link #mayOwe()}): a member that owes nothing and
 * finds the engine short of its request (the members hold more than the pool leaves for it) waits,
 * at most its reclaim wait, never once its write is cancelled or its thread interrupted, for the
 * debtors to give back, asking them again every {@value #RECHECK_MILLIS} ms; then it takes its
 * bytes. If the wait ends first it takes them all the same, and the engine may refuse the page,
 * which the write then spills for.
 *
 * <p><b>Thread-safety:</b> thread-safe. <b>Who calls:</b> the accessors, anyone on any thread; a
 * member's budget joins on the thread that opens its write, reserves through it on every thread
 * that grows one of its reservations (the writing thread, compaction threads, engine code), gives
 * back on any thread, and leaves on the thread that closes the write. One lock guards the members
 * and their capacities; it is never held while an allocator, a reclaimer or anything else outside
 * this class runs, so a reclaimer that makes Paimon spill on the asking thread, or an engine that
 * calls back into a write (Spark does), cannot deadlock with it. The reclaimer of another member
 * runs on the asking thread; as every {@link Reclaimer} it must not grow a reservation (it would
 * ask the pool again from inside a request). Only a member that owes nothing waits, and only for
 * members that owe, so no two members wait for each other.
 */
public abstract class MemoryArbiter {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryArbiter.class);

    /** A grant is at least this fraction of the asker's share. */
    static final int GRANT_SHARE = 16;
    /** How often a waiting asker looks at the debtors again when no release woke it. */
    static final int RECHECK_MILLIS = 10;

    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS);

    private final String name;
    private final long limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private final List<PoolMember> members = new ArrayList<>();
    /** The sum of the members' shares; written under {@link #lock}. */
    private volatile long pool;
    /** Askers waiting for memory to come back; a release signals only when there are any. */
    private volatile int waiters;
    /** See {@link #mayOwe()}. */
    private volatile boolean debts;

    /**
     * An arbiter named {@code name} (shown in errors) over engine memory of {@code limit} bytes,
     * already checked positive by the handle.
     */
    protected MemoryArbiter(String name, long limit) {
        this.name = name;
        this.limit = limit;
    }

    /** The name shown in errors. */
    public final String name() {
        return name;
    }

    /** The engine memory the members share at most. */
    public final long limitBytes() {
        return limit;
    }

    /** The sum of the members' shares now. */
    public final long poolBytes() {
        return pool;
    }

    /** Writes that joined and did not leave yet. */
    public final int memberCount() {
        lock.lock();
        try {
            return members.size();
        } finally {
            lock.unlock();
        }
    }

    /** What the members reserve now, together (exact, read member by member). Under the lock. */
    private long heldBytes() {
        long held = 0;
        for (PoolMember m : members) {
            held += m.budget.reservedBytes();
        }
        return held;
    }

    /**
     * Adds {@code member} with its share as its capacity.
     *
     * @throws ResourceExhaustedException when the shares would add up to more than {@link
     *     #limitBytes()}; nothing changes
     */
    void join(PoolMember member) {
        lock.lock();
        try {
            if (pool + member.share > limit) {
                throw MemoryErrors.shareRefused(name, limit, pool, members, member);
            }
            pool += member.share;
            members.add(member);
            member.budget.setCapacity(member.share);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes {@code member} (idempotent). Its share leaves the pool; when it had lent capacity,
     * borrowers are lowered toward their shares so that the capacities fit the smaller pool, and are
     * asked to give back on this thread.
     */
    void leave(PoolMember member) {
        List<PoolMember> debtors;
        lock.lock();
        try {
            if (!members.remove(member)) {
                return;
            }
            pool -= member.share;
            reclaim(capacitySum() - pool, null, false);
            debtors = owing();
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        debtors.forEach(PoolMember::askBack);
    }

    /**
     * Reserves {@code bytes} for {@code member}: when its capacity does not hold them, after the pool
     * gave it capacity (see the class comment); when other members owe memory they have not given
     * back yet, after waiting (boundedly) until the engine has the bytes, since capacity lent or
     * reclaimed is not free in the engine while a debtor still holds it. A member that owes itself
     * never waits: a debtor waiting for others could be waited for by them. Called by {@link
     * MemoryBudget} on the thread that asked.
     *
     * @return the member's reserved bytes after the add, or -1 when refused (nothing changed but
     *     capacity the member may have been given)
     */
    long reserve(PoolMember member, long bytes) {
        lock.lock();
        try {
            if (!members.contains(member)) {
                return member.budget.addWithinCapacity(bytes);
            }
            boolean askerOwes = member.budget.owedBytes() > 0;
            long need = member.budget.reservedBytes() + bytes - member.budget.capacityBytes();
            if (need > 0 && !grant(member, need)) {
                return -1;
            }
            long deadline = System.nanoTime() + member.waitNanos;
            boolean waiting = false;
            try {
                // The check and the add are one step under the lock: two askers never both take the last room.
                while (true) {
                    List<PoolMember> owing = owing();
                    debts = !owing.isEmpty();
                    owing.remove(member);
                    if (askerOwes || owing.isEmpty() || heldBytes() + bytes <= pool || member.stop.getAsBoolean()
                            || Thread.currentThread().isInterrupted()) {
                        return member.budget.addWithinCapacity(bytes);
                    }
                    long left = deadline - System.nanoTime();
                    if (waiting && left <= 0) {
                        LOG.debug("{} waited {} ms for shared memory '{}' to get {} bytes back; going on", member.name,
                                TimeUnit.NANOSECONDS.toMillis(member.waitNanos), name, bytes);
                        return member.budget.addWithinCapacity(bytes);
                    }
                    if (!waiting) {
                        // What was given is the asker's own while it waits: no other member may borrow it.
                        waiting = true;
                        member.pending += bytes;
                        waiters++;
                    }
                    // Idle debtors give back at once on this thread, also when there is no time to wait.
                    askBack(owing);
                    if (left > 0 && heldBytes() + bytes > pool) {
                        returned.awaitNanos(Math.min(left, RECHECK_NANOS));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return member.budget.addWithinCapacity(bytes);
            } finally {
                if (waiting) {
                    member.pending -= bytes;
                    waiters--;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Asks {@code owing} to give back on this thread, outside the lock (their reclaimers run Paimon). Under the lock. */
    private void askBack(List<PoolMember> owing) {
        lock.unlock();
        try {
            owing.forEach(PoolMember::askBack);
        } finally {
            lock.lock();
        }
    }

    /**
     * Whether a member may hold more than its capacity now: set when the pool lowers one below what
     * it holds, cleared by the next {@link #reserve} that finds none. While it is set, every
     * reservation of a member goes through {@link #reserve}, which waits for the engine to have the
     * bytes.
     */
    boolean mayOwe() {
        return debts;
    }

    /** Members holding more than their capacity. Under the lock. */
    private List<PoolMember> owing() {
        List<PoolMember> owing = new ArrayList<>();
        for (PoolMember m : members) {
            if (m.budget.owedBytes() > 0) {
                owing.add(m);
            }
        }
        return owing;
    }

    /**
     * Raises {@code asker}'s capacity by at least {@code need} (see the class comment). Under the
     * lock.
     *
     * @return whether it did; false: refused, nothing moved
     */
    private boolean grant(PoolMember asker, long need) {
        long capacity = asker.budget.capacityBytes();
        long room = asker.ceiling - capacity;
        if (need > room) {
            return false;
        }
        long want = Math.min(room, Math.max(need, asker.share / GRANT_SHARE));
        long got = Math.min(want, Math.max(0, pool - capacitySum()));
        // What the others do not use, read once: their reservations move while this runs.
        List<Amount> unused = new ArrayList<>();
        for (PoolMember o : members) {
            long u = o == asker ? 0 : o.unused();
            if (u > 0) {
                unused.add(new Amount(o, u));
            }
        }
        unused.sort(Comparator.comparingLong(Amount::bytes).reversed());
        List<Amount> lent = new ArrayList<>();
        for (Amount u : unused) {
            if (got >= want) {
                break;
            }
            long take = Math.min(want - got, u.bytes());
            if (u.member().budget.lendUnused(take)) {
                lent.add(new Amount(u.member(), take));
                got += take;
            }
        }
        if (got < need && capacity + need > asker.share) {
            lent.forEach(a -> a.member().budget.setCapacity(a.member().budget.capacityBytes() + a.bytes()));
            return false;
        }
        asker.budget.setCapacity(capacity + got);
        if (got < need) {
            long taken = reclaim(Math.min(want, asker.share - capacity) - got, asker, true);
            asker.reclaimedBy(taken);
            asker.budget.setCapacity(capacity + got + taken);
        }
        asker.notePeakBorrowed();
        return true;
    }

    /** Bytes of one member, for ordering members by a value read once. */
    private record Amount(PoolMember member, long bytes) {}

    /**
     * Lowers the capacity of borrowers other than {@code asker} by {@code bytes} in all, largest
     * over-share first, each at most to its share; those that now hold more than their capacity owe
     * it. Under the lock. By construction the borrowers hold enough over their shares: the pool is
     * the sum of the shares, so capacity a member lacks below its share is held by others above
     * theirs, or by nobody.
     *
     * @param forAsker whether a member takes its share back (counted on both sides), rather than the
     *     pool shrinking as a member leaves
     * @return the bytes taken
     */
    private long reclaim(long bytes, PoolMember asker, boolean forAsker) {
        if (bytes <= 0) {
            return 0;
        }
        List<PoolMember> borrowers = new ArrayList<>(members);
        borrowers.remove(asker);
        // Capacities and shares move only under the lock: the order is stable while it sorts.
        borrowers.sort(Comparator.comparingLong(PoolMember::overShare).reversed());
        long taken = 0;
        for (PoolMember b : borrowers) {
            long over = b.overShare();
            if (taken >= bytes || over <= 0) {
                break;
            }
            long take = Math.min(bytes - taken, over);
            b.budget.setCapacity(b.budget.capacityBytes() - take);
            b.lowered(take, forAsker);
            taken += take;
            if (b.budget.owedBytes() > 0) {
                debts = true;
            }
        }
        return taken;
    }

    /** Under the lock. */
    private long capacitySum() {
        long sum = 0;
        for (PoolMember m : members) {
            sum += m.budget.capacityBytes();
        }
        return sum;
    }

    /** A member gave memory back: wakes the askers waiting for it. Cheap when nobody waits. */
    void released() {
        if (waiters == 0) {
            return;
        }
        lock.lock();
        try {
            returned.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
