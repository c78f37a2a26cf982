package io.paimongov.connector.spark.write;

import io.paimongov.fixtures.TestTables;
import java.io.Serializable;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/**
 * A deterministic dataset of upserts with duplicate keys and deletes, made per Spark partition from
 * a seed (each partition owns the keys {@code k % partitions == partition}, so no key is written by
 * two tasks of one commit), and the table content it must give.
 */
final class Ops implements Serializable {

    private static final long serialVersionUID = 1L;

    final int partitions;
    final int rowsPerPartition;
    final int keysPerPartition;

    Ops(int partitions, int rowsPerPartition, int keysPerPartition) {
        this.partitions = partitions;
        this.rowsPerPartition = rowsPerPartition;
        this.keysPerPartition = keysPerPartition;
    }

    /** The rows of Spark partition {@code slice}, as Paimon rows (p INT, k INT, v STRING), made lazily. */
    Iterator<InternalRow> rows(int slice) {
        Random random = new Random(slice * 7919L + 17);
        Set<List<Integer>> live = new HashSet<>();
        return new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < rowsPerPartition;
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int p = random.nextInt(3);
                int k = random.nextInt(keysPerPartition) * partitions + slice;
                List<Integer> key = List.of(p, k);
                int row = i++;
                if (random.nextInt(10) == 0 && live.remove(key)) {
                    return GenericRow.ofKind(RowKind.DELETE, p, k, null);
                }
                live.add(key);
                return GenericRow.of(p, k, BinaryString.fromString(slice + "/" + row + ":" + "x".repeat(40 + random.nextInt(40))));
            }
        };
    }

    /** What the table must hold after every partition's rows are committed. */
    Map<List<Integer>, String> expected() {
        Map<List<Integer>, String> model = TestTables.emptyModel();
        for (int slice = 0; slice < partitions; slice++) {
            rows(slice).forEachRemaining(row -> TestTables.apply(model, row));
        }
        return model;
    }
}
