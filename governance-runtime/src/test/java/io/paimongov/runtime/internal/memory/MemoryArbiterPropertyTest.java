package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.memory.SharedMemory;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * The arbiter's policy against random members, shares and requests, on one thread: writes join and
 * leave, grow and shrink their reservations, and borrowers pay what they owe at their "safe point".
 * Members are idle (their reclaimer gives back on the asking thread, as an idle write's flush does)
 * or busy (it gives nothing: they pay at their safe point only); nobody waits.
 *
 * <p>After every step: the capacities never add up to more than the pool, the pool is the sum of
 * the shares, no capacity passes its ceiling, and the borrowed bytes are the capacity above the
 * share. For every request, from what each member held before and after it: a request that keeps
 * the asker within its share is granted; a request past the share is granted only from what nobody
 * uses and then takes nothing back; a refused one changes nothing and there was not enough unused
 * capacity; only unused capacity is lent; and reclaims take from the largest over-share first, never
 * below a share. Tries: jqwik's default, {@code -Djqwik.tries.default=N} to run deep.
 */
class MemoryArbiterPropertyTest {

    private static final int PAGE = 4096;
    private static final long LIMIT = 64L * PAGE * 16;

    /** One write in the pool as the test sees it. */
    static final class Write {
        final String name;
        final long share;
        final MemoryBudget budget;
        final MemoryReservation reservation;

        Write(String name, long share, SharedMemory pool, boolean idle) {
            this.name = name;
            this.share = share;
            this.budget = MemoryBudget.member(new BoundedTestAllocator(PAGE, LIMIT), pool, name, share, 0, () -> false);
            this.reservation = budget.newReservation(name + " buffer");
            if (idle) {
                budget.setReclaimer(bytes -> {
                    long give = Math.min(reservation.bytes(), Math.max(0, budget.owedBytes()));
                    reservation.shrink(give);
                    return give;
                });
            }
        }
    }

    /** The pool and its writes. */
    static final class Model {
        final SharedMemory pool = SharedMemory.of("pool", LIMIT);
        final List<Write> writes = new ArrayList<>();
        int made;

        void join(long share, boolean idle) {
            if (pool.poolBytes() + share <= LIMIT) {
                writes.add(new Write("w" + made++ + (idle ? " (idle)" : " (busy)"), share, pool, idle));
            }
        }

        void leave(int i) {
            Write w = writes.remove(i);
            w.reservation.close();
            w.budget.leavePool();
        }

        void shrink(int i, long bytes) {
            MemoryReservation r = writes.get(i).reservation;
            r.shrink(Math.min(bytes, r.bytes()));
        }

        /** The write's safe point: gives back what it owes. */
        void payBack(int i) {
            Write w = writes.get(i);
            long owed = w.budget.owedBytes();
            if (owed > 0) {
                w.reservation.shrink(Math.min(owed, w.reservation.bytes()));
            }
        }

        void grow(int asker, long bytes) {
            int n = writes.size();
            long[] c = new long[n];
            long[] r = new long[n];
            long[] from = new long[n];
            long free = pool.poolBytes();
            for (int j = 0; j < n; j++) {
                Write w = writes.get(j);
                c[j] = w.budget.capacityBytes();
                r[j] = w.budget.reservedBytes();
                from[j] = w.budget.reclaimedFromBytes();
                free -= c[j];
            }
            Write a = writes.get(asker);
            long need = r[asker] + bytes - c[asker];
            long unused = Math.max(0, free);
            for (int j = 0; j < n; j++) {
                if (j != asker) {
                    unused += Math.max(0, c[j] - r[j]);
                }
            }
            boolean withinShare = r[asker] + bytes <= a.share;

            boolean granted = a.reservation.tryGrow(bytes);

            long[] lent = new long[n];
            long[] taken = new long[n];
            long[] over = new long[n];
            for (int j = 0; j < n; j++) {
                Write w = writes.get(j);
                if (!granted) {
                    assertThat(w.budget.capacityBytes()).as("a refused request moves no capacity: " + w.name).isEqualTo(c[j]);
                    assertThat(w.budget.reservedBytes()).as("nor any reservation: " + w.name).isEqualTo(r[j]);
                    continue;
                }
                if (j == asker) {
                    assertThat(w.budget.reservedBytes()).isEqualTo(r[j] + bytes);
                    continue;
                }
                taken[j] = w.budget.reclaimedFromBytes() - from[j];
                lent[j] = c[j] - w.budget.capacityBytes() - taken[j];
                over[j] = c[j] - lent[j] - w.share;
                assertThat(lent[j]).as("only unused capacity is lent: " + w.name).isBetween(0L, Math.max(0, c[j] - r[j]));
                assertThat(taken[j]).as("a reclaim stops at the share: " + w.name).isBetween(0L, Math.max(0, over[j]));
                if (!withinShare) {
                    assertThat(taken[j]).as("borrowing takes nothing back: " + w.name).isZero();
                }
            }
            if (withinShare) {
                assertThat(granted).as("a request within the share is granted").isTrue();
            }
            if (!granted) {
                assertThat(unused).as("refused although enough was unused").isLessThan(need);
                return;
            }
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < n; k++) {
                    if (j != asker && k != asker && taken[k] > 0 && over[j] > over[k]) {
                        assertThat(taken[j]).as(writes.get(j).name + " over its share by " + over[j] + " gives all before "
                                + writes.get(k).name + " over by " + over[k]).isEqualTo(over[j]);
                    }
                }
            }
        }

        void checkInvariants() {
            long shares = 0;
            long capacities = 0;
            for (Write w : writes) {
                long capacity = w.budget.capacityBytes();
                shares += w.share;
                capacities += capacity;
                assertThat(capacity).as(w.name + "'s capacity").isBetween(0L, LIMIT);
                assertThat(w.budget.borrowedBytes()).isEqualTo(Math.max(0, capacity - w.share));
                assertThat(w.budget.peakBorrowedBytes()).isGreaterThanOrEqualTo(w.budget.borrowedBytes());
                assertThat(w.budget.shareBytes()).isEqualTo(w.share);
            }
            assertThat(pool.poolBytes()).as("the pool is the sum of the shares").isEqualTo(shares);
            assertThat(capacities).as("the capacities fit in the pool").isLessThanOrEqualTo(pool.poolBytes());
            assertThat(pool.memberCount()).isEqualTo(writes.size());
        }

        @Override
        public String toString() {
            return writes.size() + " writes, pool " + pool.poolBytes();
        }
    }

    @Property
    void thePolicyHoldsForEveryRequest(@ForAll("chains") ActionChain<Model> chain) {
        chain.withInvariant("capacities", Model::checkInvariants).run();
    }

    @Provide
    Arbitrary<ActionChain<Model>> chains() {
        return ActionChain.<Model>startWith(Model::new)
                .withAction(2, new Join())
                .withAction(new Leave())
                .withAction(4, new Grow())
                .withAction(2, new Shrink())
                .withAction(new PayBack())
                .withMaxTransformations(40);
    }

    static final class Join implements Action.Independent<Model> {
        @Override
        public Arbitrary<Transformer<Model>> transformer() {
            return Arbitraries.integers().between(8, 256).flatMap(pages -> Arbitraries.of(true, false)
                    .map(idle -> Transformer.mutate("join " + pages + " pages" + (idle ? " idle" : " busy"),
                            m -> m.join((long) pages * PAGE, idle))));
        }
    }

    abstract static class OnAWrite implements Action.Dependent<Model> {
        @Override
        public boolean precondition(Model m) {
            return !m.writes.isEmpty();
        }

        Arbitrary<Integer> write(Model m) {
            return Arbitraries.integers().between(0, m.writes.size() - 1);
        }
    }

    static final class Leave extends OnAWrite {
        @Override
        public Arbitrary<Transformer<Model>> transformer(Model m) {
            return write(m).map(i -> Transformer.mutate("leave #" + i, s -> s.leave(i)));
        }
    }

    static final class Grow extends OnAWrite {
        @Override
        public Arbitrary<Transformer<Model>> transformer(Model m) {
            return write(m).flatMap(i -> Arbitraries.integers().between(1, 128)
                    .map(pages -> Transformer.mutate("#" + i + " grows " + pages + " pages", s -> s.grow(i, (long) pages * PAGE))));
        }
    }

    static final class Shrink extends OnAWrite {
        @Override
        public Arbitrary<Transformer<Model>> transformer(Model m) {
            return write(m).flatMap(i -> Arbitraries.integers().between(1, 128)
                    .map(pages -> Transformer.mutate("#" + i + " shrinks " + pages + " pages", s -> s.shrink(i, (long) pages * PAGE))));
        }
    }

    static final class PayBack extends OnAWrite {
        @Override
        public Arbitrary<Transformer<Model>> transformer(Model m) {
            return write(m).map(i -> Transformer.mutate("#" + i + " pays back", s -> s.payBack(i)));
        }
    }
}
