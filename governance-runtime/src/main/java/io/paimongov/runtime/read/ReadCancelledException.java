package io.paimongov.runtime.read;

import java.io.IOException;

/**
 * A governed read was cancelled: thrown by its next batch, file, merge pass or plan once the
 * read's context was cancelled (by the engine's signal or {@code ResourceContext.cancel}). An
 * {@link IOException}, so that Paimon's readers unwind as from any failed read; by then nothing of
 * the failed call is held: its readers are closed, their reservations given back and its spilled
 * runs deleted.
 */
public final class ReadCancelledException extends IOException {

    private static final long serialVersionUID = 1L;

    public ReadCancelledException(String reason) {
        super("the read was cancelled: " + reason);
    }
}
