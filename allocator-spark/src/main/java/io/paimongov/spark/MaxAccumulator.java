package io.paimongov.spark;

import org.apache.spark.util.AccumulatorV2;

/**
 * A Spark accumulator of the largest value added or merged: 0 before any. Zero ("nothing added")
 * is a state of its own, so that a task whose write reported a peak of 0 still shows its update.
 *
 * <p>Not thread-safe, as Spark's accumulators; {@link SparkWriteAccumulators} serializes its adds.
 */
final class MaxAccumulator extends AccumulatorV2<Long, Long> {

    private static final long serialVersionUID = 1L;

    private boolean set;
    private long max;

    @Override
    public boolean isZero() {
        return !set;
    }

    @Override
    public MaxAccumulator copy() {
        MaxAccumulator copy = new MaxAccumulator();
        copy.set = set;
        copy.max = max;
        return copy;
    }

    @Override
    public void reset() {
        set = false;
        max = 0;
    }

    @Override
    public void add(Long value) {
        max = set ? Math.max(max, value) : value;
        set = true;
    }

    @Override
    public void merge(AccumulatorV2<Long, Long> other) {
        if (!(other instanceof MaxAccumulator o)) {
            throw new UnsupportedOperationException("cannot merge a " + getClass().getName() + " with a " + other.getClass().getName());
        }
        if (o.set) {
            add(o.max);
        }
    }

    @Override
    public Long value() {
        return max;
    }
}
