package io.paimongov.benchmarks.lag;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;

/**
 * What a lag child tells the harness over its stdout, frame by frame: when its schedule started,
 * each checkpoint's commit messages (Paimon's own serialization, as Flink ships them from a writer
 * to its committer), and that it ended. The harness commits and probes in its own JVM, so that the
 * child's heap holds the write alone.
 *
 * <p>Stateless; the methods read or write one frame on the stream given, which the caller owns.
 */
final class Frames {

    static final byte START = 'S';
    static final byte CHECKPOINT = 'C';
    static final byte END = 'E';

    /**
     * One frame.
     *
     * @param type {@link #START}, {@link #CHECKPOINT} or {@link #END}
     * @param startMillis the schedule's start (epoch ms), for {@link #START}
     * @param checkpoint the checkpoint, for {@link #CHECKPOINT}
     */
    record Frame(byte type, long startMillis, Checkpoint checkpoint) {}

    /**
     * A prepared checkpoint.
     *
     * @param id the commit identifier
     * @param rowsWritten rows the writer had written when it prepared it
     * @param prepareMillis how long its prepareCommit took
     * @param messages its commit messages
     */
    record Checkpoint(long id, long rowsWritten, long prepareMillis, List<CommitMessage> messages) {}

    private Frames() {}

    static void writeStart(DataOutputStream out, long startMillis) throws IOException {
        out.writeByte(START);
        out.writeLong(startMillis);
        out.flush();
    }

    static void writeCheckpoint(DataOutputStream out, Checkpoint c) throws IOException {
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        out.writeByte(CHECKPOINT);
        out.writeLong(c.id());
        out.writeLong(c.rowsWritten());
        out.writeLong(c.prepareMillis());
        out.writeInt(serializer.getVersion());
        out.writeInt(c.messages().size());
        for (CommitMessage m : c.messages()) {
            byte[] bytes = serializer.serialize(m);
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        out.flush();
    }

    static void writeEnd(DataOutputStream out) throws IOException {
        out.writeByte(END);
        out.flush();
    }

    /**
     * The next frame.
     *
     * @throws EOFException when the stream ends before a whole frame (the child died)
     * @throws IOException for a frame of no known type
     */
    static Frame read(DataInputStream in) throws IOException {
        byte type = in.readByte();
        switch (type) {
            case START:
                return new Frame(type, in.readLong(), null);
            case CHECKPOINT:
                long id = in.readLong();
                long written = in.readLong();
                long prepare = in.readLong();
                int version = in.readInt();
                int count = in.readInt();
                CommitMessageSerializer serializer = new CommitMessageSerializer();
                List<CommitMessage> messages = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    byte[] bytes = new byte[in.readInt()];
                    in.readFully(bytes);
                    messages.add(serializer.deserialize(version, bytes));
                }
                return new Frame(type, 0, new Checkpoint(id, written, prepare, messages));
            case END:
                return new Frame(type, 0, null);
            default:
                throw new IOException("a lag child sent a frame of unknown type " + type);
        }
    }
}
