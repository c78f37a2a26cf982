package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The open-writer cap, against hand-computed counts. The numbers are those of a primary-key ORC
 * table of 8 buckets at a 6 MiB budget: 1,108,566 bytes left beside the fixed reservations and one
 * compaction task, 158,298 bytes per open writer (footprint plus three 32 KiB pages).
 */
class WriterAdmissionTest {

    private static final long FREE = 1_108_566;
    private static final long PER_OPEN = 158_298;

    @Test
    void writersThatBufferInPagesCountOnAllTheRoom() {
        // 7 x 158,298 = 1,108,086 fits in 1,108,566; 8 x 158,298 = 1,266,384 does not.
        assertThat(WriterAdmission.maxOpen(FREE, PER_OPEN, true)).isEqualTo(7);
    }

    @Test
    void writersWithoutPagesLeaveHalfTheRoomToTheSharedSort() {
        // Half the room is 554,283: 3 x 158,298 = 474,894 fits, 4 x 158,298 = 633,192 does not.
        assertThat(WriterAdmission.maxOpen(FREE, PER_OPEN, false)).isEqualTo(3);
    }

    @Test
    void oneWriterIsAlwaysAllowedAndHugeRoomsStayAnInt() {
        assertThat(WriterAdmission.maxOpen(0, PER_OPEN, true)).isEqualTo(1);
        assertThat(WriterAdmission.maxOpen(PER_OPEN - 1, PER_OPEN, true)).isEqualTo(1);
        assertThat(WriterAdmission.maxOpen(Long.MAX_VALUE, 1, true)).isEqualTo(Integer.MAX_VALUE);
        assertThat(WriterAdmission.maxOpen(FREE, 0, true)).as("a zero cost counts as one byte").isEqualTo((int) FREE);
    }
}
