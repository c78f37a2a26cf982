package io.paimongov.cli;

import org.apache.flink.table.functions.ScalarFunction;

/** A user-defined Flink function for the {@code sql} command's tests: {@code x + 1}. Public for Flink's loader. */
public final class PlusOne extends ScalarFunction {

    public Integer eval(Integer x) {
        return x == null ? null : x + 1;
    }
}
