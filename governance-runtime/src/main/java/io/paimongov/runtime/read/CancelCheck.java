package io.paimongov.runtime.read;

/** Where a read looks for a cancel: before each batch, file, merge pass and plan. Thread-safe. */
@FunctionalInterface
interface CancelCheck {

    /** @throws ReadCancelledException once the read's context was cancelled */
    void check() throws ReadCancelledException;
}
