package io.paimongov.tck;

import net.jqwik.api.Example;

/**
 * COMPACT-*: parallel compaction keeps each bucket serial and stays within its threads. Optional:
 * in this version the runtime compacts each write on one thread, Paimon's own behaviour, so {@link
 * OptionalRules} skips them until a verification declares {@code supportsParallelCompaction}.
 */
abstract class CompactionRules extends DiscoveryRules {

    @Example
    @Verifies(Rule.COMPACT_1)
    void optional_COMPACT1_neverTwoCompactionsOfOneBucketAtOnce() {
        throw new AssertionError(Rule.COMPACT_1.fail("parallel compaction is declared, but this version of the kit cannot verify it yet"));
    }

    @Example
    @Verifies(Rule.COMPACT_2)
    void optional_COMPACT2_concurrencyStaysWithinTheThreadSetting() {
        throw new AssertionError(Rule.COMPACT_2.fail("parallel compaction is declared, but this version of the kit cannot verify it yet"));
    }
}
