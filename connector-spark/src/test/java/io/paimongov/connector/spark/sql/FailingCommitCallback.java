package io.paimongov.connector.spark.sql;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.sink.CommitCallback;

/**
 * A Paimon commit callback ({@code 'commit.callbacks'}) that throws once when armed, as a failing
 * metastore callback would: Paimon calls it after the commit published its snapshot. Public with a
 * public constructor because Paimon instantiates it by reflection; runs on the driver of the tests'
 * local Spark, in the tests' JVM.
 */
public final class FailingCommitCallback implements CommitCallback {

    /** Armed by a test: the next call throws, once. */
    static final AtomicBoolean ARMED = new AtomicBoolean();

    static final String MESSAGE = "injected: the commit callback failed after the snapshot was published";

    @Override
    public void call(Context context) {
        if (ARMED.getAndSet(false)) {
            throw new IllegalStateException(MESSAGE + " (snapshot " + context.snapshot.id() + ")");
        }
    }

    @Override
    public void retry(ManifestCommittable committable) {}

    @Override
    public void close() {}
}
