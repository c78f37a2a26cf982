package io.paimongov.connector.flink.sink;

/**
 * One Paimon commit message on its way from a writer subtask to the committer, serialized with
 * Paimon's {@code CommitMessageSerializer}. A Flink POJO, so Flink serializes it without Kryo.
 *
 * <p>Not thread-safe; a value travelling through one stream.
 */
public class Committable {

    /** The checkpoint the message belongs to, or {@link GovernedWriterOperator#END_INPUT} for the end of a bounded input. */
    public long checkpointId;

    /** The version of {@code CommitMessageSerializer} that wrote {@link #message}. */
    public int serializerVersion;

    public byte[] message;

    public Committable() {}

    Committable(long checkpointId, int serializerVersion, byte[] message) {
        this.checkpointId = checkpointId;
        this.serializerVersion = serializerVersion;
        this.message = message;
    }
}
