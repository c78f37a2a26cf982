package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class MeasuredFootprintsTest {

    private static final String TABLE = String.join("\n",
            "# harness: test",
            "kind\tformat\tcompression\tvalueBytes\tpageSize\tstage\tbytesPerWriter",
            "pk\torc\tzstd\t64\t32768\tidle\t100",
            "pk\torc\tsnappy\t1024\t32768\tidle\t130",
            "pk\torc\tzstd\t64\t65536\tidle\t400",
            "pk\torc\tzstd\t1024\t65536\tidle\t300",
            "append\torc\tzstd\t64\t32768\topen\t5000");

    private static MeasuredFootprints table() throws Exception {
        return MeasuredFootprints.parse(new BufferedReader(new StringReader(TABLE)));
    }

    @Test
    void theLargestCellAtTheNearestPageSizeIsCharged() throws Exception {
        MeasuredFootprints t = table();
        assertThat(t.bytes("pk", "orc", "idle", 16 << 10)).isEqualTo(130);
        assertThat(t.bytes("pk", "ORC", "idle", 40 << 10)).isEqualTo(130);
        assertThat(t.bytes("pk", "orc", "idle", 60 << 10)).isEqualTo(400);
        assertThat(t.bytes("pk", "orc", "idle", 1 << 20)).isEqualTo(400);
        assertThat(t.bytes("append", "orc", "open", 64 << 10)).isEqualTo(5000);
    }

    @Test
    void aMissingCellIsNamedWithWhatTheTableHas() throws Exception {
        assertThatThrownBy(() -> table().bytes("pk", "parquet", "idle", 32 << 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kind=pk, format=parquet, stage=idle")
                .hasMessageContaining("pk/orc/idle")
                .hasMessageContaining("benchmarks/calibrate");
    }

    @Test
    void theShippedTableHasEveryStageTheWritePlansWith() {
        MeasuredFootprints shipped = MeasuredFootprints.get();
        for (String format : new String[] {"parquet", "orc", "avro"}) {
            for (String stage : new String[] {"open", "idle", "file"}) {
                assertThat(shipped.has("pk", format, stage)).as("pk " + format + " " + stage).isTrue();
            }
            for (String stage : new String[] {"open", "idle"}) {
                assertThat(shipped.has("append", format, stage)).as("append " + format + " " + stage).isTrue();
            }
        }
    }
}
