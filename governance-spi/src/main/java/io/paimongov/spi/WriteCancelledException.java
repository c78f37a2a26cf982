package io.paimongov.spi;

/**
 * The write was cancelled, by the engine or through its token, and nothing of it will be
 * committed (docs/spi.md, clauses ERR.2 and CANCEL.4). Unchecked so it passes through Paimon's
 * signatures; the runtime unwraps it from Paimon's wrappers.
 */
public final class WriteCancelledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    public WriteCancelledException(String reason) {
        this(reason, null);
    }

    public WriteCancelledException(String reason, Throwable cause) {
        super("write cancelled: " + reason, cause);
        this.reason = reason;
    }

    /** The reason given to {@code cancel}, or the engine's. */
    public String reason() {
        return reason;
    }
}
