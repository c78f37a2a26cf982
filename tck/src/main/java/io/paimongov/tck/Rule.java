package io.paimongov.tck;

import java.util.List;

/**
 * Every rule of the kit: its id, whether an allocator must pass it, the contract clauses of {@code
 * docs/spi.md} it checks ({@code ALLOC.3}, ...), what it states and where to look when it fails.
 * {@code docs/tck.md} lists the same table ({@code RuleDocsTest} keeps the two in step);
 * {@code ContractDriftTest} keeps the clauses cited here in step with docs/spi.md.
 */
public enum Rule {
    MEM_1("MEM-1", true,
            clauses("ALLOC.2", "ALLOC.3", "ALLOC.5", "ALLOC.6"),
            "Asked for its whole capacity and then one byte more, and under random sequences of reserve, release, allocate and free, accounting matches a reference model and never passes the capacity.",
            "tryReserve/allocate must refuse what does not fit; usedBytes() must be exactly live pages plus reservations."),
    MEM_2("MEM-2", true,
            clauses("ALLOC.6"),
            "Threads started together at every step race for the last units below the capacity (reserve and allocate, released together or at random): what they are granted never passes the capacity, usedBytes() is exactly what they hold at every step, the engine never passes its budget, a worker thread never throws, and everything ends at its start.",
            "the capacity check and the update must be one atomic step (a lock or a compare-and-set), in the allocator and in the engine; releases must not lose updates either."),
    MEM_3("MEM-3", true,
            clauses("ALLOC.5"),
            "A failed reservation leaves accounting unchanged, in the allocator and in the engine.",
            "undo a partial engine reservation before returning false."),
    MEM_4("MEM-4", true,
            clauses("ALLOC.3"),
            "Page allocation is all-or-nothing: a request that does not fit throws ResourceExhaustedException and gives no page.",
            "check room for every page before taking the first, or give back what was taken before throwing; leave the target list untouched."),
    MEM_5("MEM-5", true,
            clauses("ALLOC.4"),
            "Live pages have the page size, are writable and never alias each other.",
            "do not hand out a page twice before it is released; wrap each engine buffer once; size every page pageSize()."),
    MEM_6("MEM-6", true,
            clauses("ALLOC.7", "RES.4"),
            "After the write's resources close, the engine's own memory counter is back at its starting level.",
            "release(pages) and release(bytes) must give memory back to the engine, and close() must release what is left."),
    MEM_7("MEM-7", true,
            clauses("RES.3"),
            "Closing the engine resources twice is harmless.",
            "make EngineResources.close() idempotent."),
    MEM_8("MEM-8", true,
            clauses("ALLOC.8"),
            "Allocating or reserving after close fails with GovernanceClosedException.",
            "remember the closed state and throw io.paimongov.spi.GovernanceClosedException."),
    MEM_9("MEM-9", true,
            clauses("ALLOC.1"),
            "The allocator's capacity is positive and within governance.memory.budget; its page size is a power of two of at least 4k and is governance.memory.page-size, for each of two settings, unless the allocator says the engine fixes it (pageSizeFixedByEngine()): then it is the same whatever the setting; every page it gives has that size.",
            "read governance.memory.budget and governance.memory.page-size from the options given to open(); if the engine decides the page size, return true from pageSizeFixedByEngine() and give pages of exactly that size."),
    MEM_10("MEM-10", true,
            clauses("ALLOC.10"),
            "Releasing a page twice, a page of another allocator, more bytes than are reserved, from another thread or after close changes nothing that is still held, in the allocator and in the engine, and no page is then handed out to two owners.",
            "track live pages by identity (a release of a page that is not live does nothing; a free list must not take a page twice), clamp byte releases to what is reserved, and make release after close a no-op."),
    MEM_11("MEM-11", true,
            clauses("ALLOC.11", "ALLOC.3", "ALLOC.5"),
            "On an engine with less memory than the budget, the allocator refuses what the engine cannot give with ResourceExhaustedException (allocate) or false (tryReserve), leaving the accounting unchanged, never holds more than the engine has, and can take again what it gave back.",
            "turn the engine's refusal (an exception of the engine's, a short grant) into ResourceExhaustedException or false, after giving back any part the engine did grant; never let the engine's own error escape."),
    MEM_12("MEM-12", true,
            clauses("ALLOC.11", "ALLOC.6", "ALLOC.4"),
            "Several writes sharing one engine, taking pages at once until refused, never hold more than the engine has between them, never share a page, refuse the typed way, and what one write gives back at close the next can take.",
            "check the engine's limit in the engine, atomically, not only against each allocator's own capacity; give memory back to the engine (not to a cache of the allocator's) on close."),
    MEM_13("MEM-13", true,
            clauses("ALLOC.11", "ALLOC.7"),
            "A real write whose engine memory is taken by another consumer mid-write never holds more than the engine has left for it and is refused by the engine when it asks for more (a write that asks for nothing more proves nothing and is made again larger), and either commits exactly the model's table or fails with ResourceExhaustedException, and then holds nothing: nothing reserved, nothing in the engine but the other consumer's memory, no spill scope.",
            "take every page and reservation from the engine at the moment it is asked for, so that a shrunk engine refuses with ResourceExhaustedException; release(pages) and close() must give the engine back everything."),
    MEM_14("MEM-14", true,
            clauses("ALLOC.12"),
            "Budgets of 3 GiB, 2^40 bytes and within a MiB of Long.MAX_VALUE, each on an engine of as much, are refused at open taking nothing or give a capacity of the whole budget, and reservations past 2^31 bytes up to the capacity are counted exactly in usedBytes() and the engine's counter; requests past the room left, up to Long.MAX_VALUE, are refused and change nothing. Only reservations are that large: nothing of that size is allocated.",
            "keep budgets, capacities, requests and counters in long, never int; compare a request with the room left (capacity - used), not used + request, which overflows."),
    MEM_15("MEM-15", true,
            clauses("ALLOC.13"),
            "release(pages), release(bytes) and close() called on an interrupted thread, or on a thread another thread keeps interrupting while they run, give the memory back to the engine at once, and leave the thread's interrupt status set.",
            "do not skip or cut short a release when the thread is interrupted, and do not wait interruptibly in it; if something in it catches InterruptedException, finish the release and interrupt the thread again."),
    MEM_16("MEM-16", true,
            clauses("ALLOC.14", "ALLOC.6"),
            "More worker threads than cores take and give back pages and bytes at random on one allocator with room to spare for all of them, round after round (a fresh write each) until their calls were seen to overlap (a worker entering allocate, tryReserve or release while another is inside one): after every round usedBytes() is 0 and the engine's counter back at its start, no page went to two workers and no call threw.",
            "guard the set or list of live pages with the lock that guards the counters, or use a concurrent set; a plain HashSet or ArrayList loses or keeps pages when two threads change it at once."),
    MEM_17("MEM-17", true,
            clauses("ALLOC.15", "ALLOC.11"),
            "Writes that share one engine, side by side and one after another, take pages and bytes after earlier writes gave theirs back: after every grant the engine's counter is up by at least everything the open writes hold.",
            "take the memory of a page from the engine every time the page is handed out; a cache of released pages must charge the engine again when it hands one out, also to another write."),
    WRITE_1("WRITE-1", true,
            clauses("ALLOC.4"),
            "Random workloads (duplicate keys, deletes, partitions, buckets, merge engines, formats, budgets) commit exactly the reference model's table.",
            "pages must keep their contents while live; a page handed to Paimon must not be reused by the engine until released."),
    WRITE_2("WRITE-2", true,
            clauses("ALLOC.4"),
            "A write under a small budget (6m, 16k pages) and the same write under an ample one (256m, 64k pages) each commit exactly the reference model's table.",
            "spilling must not lose or corrupt rows: check that pages stay valid across spills and that released pages are not still in use."),
    WRITE_3("WRITE-3", true,
            clauses("ALLOC.1", "ALLOC.6"),
            "The allocator of a real write states a capacity within the budget it was given, and after every grant neither its usedBytes() passes that capacity nor the engine's own counter its budget.",
            "capacityBytes() must be at most governance.memory.budget and the engine budget the provider really enforces."),
    SPILL_1("SPILL-1", true,
            clauses("SPILL.3"),
            "After a successful spilling write, nothing the write made is left in the engine's temp space.",
            "do not create temp directories of your own per write, or delete them in EngineResources.close()."),
    SPILL_2("SPILL-2", true,
            clauses("ALLOC.7", "SPILL.5"),
            "After a page allocation failure injected inside the write (drawn below the allocations a plain write of the same rows made, and seen to fire and fail the write), no spill file, reservation or snapshot is left and the engine's memory is back; so too after a write that failed by itself.",
            "release must stay infallible on every path; close() must work after a failed allocation."),
    SPILL_3("SPILL-3", true,
            clauses("SPILL.5"),
            "After a prepared write is closed without commit (abort), nothing is left and nothing is published.",
            "close() must release everything even when commit messages were never committed."),
    SPILL_4("SPILL-4", true,
            clauses("SPILL.1", "SPILL.5", "CANCEL.5"),
            "After a cancel, no spill file or spill scope is left.",
            "spill roots must be directories the runtime may delete scopes in."),
    SPILL_5("SPILL-5", true,
            clauses("SPILL.2", "SPILL.6"),
            "The spill byte budget (governance.spill.max-bytes) holds: the spill scope never holds more on disk.",
            "SpillLocations.maxBytes() must return governance.spill.max-bytes, or a smaller engine limit."),
    SPILL_6("SPILL-6", true,
            clauses("SPILL.1", "SPILL.4"),
            "Spill scopes are owner-only (0700) and lie under the provider's spill roots.",
            "spill roots must be on a file system with POSIX permissions, or the provider must say why not."),
    SPILL_7("SPILL-7", true,
            clauses("SPILL.1", "SPILL.7"),
            "Spill scopes left by a dead process are swept when a new write opens on the same roots.",
            "SpillLocations.roots() must be the same directories for every write of the engine."),
    SPILL_8("SPILL-8", true,
            clauses("SPILL.8"),
            "While a spilling write runs, nothing is created outside the spill directories it was given (governance.spill.dirs, or the engine's own temp space), the table and the rest of the kit's directory: nothing in java.io.tmpdir, the working directory or a root the provider names elsewhere.",
            "SpillLocations.roots() must be governance.spill.dirs (ProviderOptions.spillDirs()) or the engine's own temp directories; write no spill of your own anywhere else."),
    CANCEL_1("CANCEL-1", true,
            clauses("CANCEL.4", "LOCK.2"),
            "Many short writes, each cancelled from another thread at the entry of a page allocation or at a row, all throw WriteCancelledException, and the 99th percentile of the time from cancel to throw is within governance.tck.cancel-bound-ms.",
            "the allocator must not block a cancelled write; allocate() must return or throw promptly."),
    CANCEL_2("CANCEL-2", true,
            clauses("CANCEL.4"),
            "After a cancel there is no new snapshot and no data file in the table.",
            "nothing in the allocator should publish; check that close() ran."),
    CANCEL_3("CANCEL-3", true,
            clauses("CANCEL.5", "ALLOC.7"),
            "After a cancel that finds the write idle, so that the cancelling thread releases everything, every reservation is zero, the allocator holds nothing when its resources close and the engine's memory is back at its start.",
            "release paths must work from the thread that cancels or closes, not only the writing thread."),
    CANCEL_4("CANCEL-4", true,
            clauses("COMPACT.3"),
            "On a table with a compaction backlog written with two compaction threads, a cancel after the engine's compaction factory made a thread leaves no thread the write started running.",
            "CompactionThreads.threadFactory() threads must end when interrupted."),
    CANCEL_5("CANCEL-5", false,
            clauses("CANCEL.1", "CANCEL.2"),
            "The engine's own cancel (its CancellationSignal) stops the write with WriteCancelledException and leaves nothing behind.",
            "EngineResources.cancellation() must report the engine's cancel (cancelReason) or call the listener given to onCancel."),
    CANCEL_6("CANCEL-6", true,
            clauses("RES.5", "CANCEL.2"),
            "Fifty small writes one after another on one engine, every fifth cancelled, leave the engine's registrations (cancel listeners, metric sources, task listeners, as StandaloneEngine.registrations() counts them) where the first write left them.",
            "remove what a write registers with the engine when its resources close (the handle onCancel returns must unregister its listener); with engine objects that cannot unregister, register once per engine object, not once per write."),
    METRICS_1("METRICS-1", true,
            clauses("METRICS.1", "METRICS.4"),
            "The snapshot, and every snapshot taken while the write runs, agrees with what the kit saw itself, never with another field of the runtime's: budget with governance.memory.budget, rows in with the rows written, files out with the commit messages, spill counters with the spill files on disk, reserved bytes and peak with what the kit saw the allocator hold (pages and reservations); nothing reserved after close.",
            "the runtime counts these; an allocator can only break them by mis-reporting capacity or pages."),
    METRICS_2("METRICS-2", true,
            clauses("METRICS.4"),
            "Exact fields are exact: output files and bytes equal the data files the write added to the table, input bytes the rows' binary sizes, page, estimated and reserved bytes what the kit counts the allocator holding (pages, reservations, both), spill counters at least what was on disk.",
            "pageSize() must be the size of every page and constant; the runtime counts the rest."),
    METRICS_3("METRICS-3", false,
            clauses("METRICS.2"),
            "What the engine's metric system received at close equals the write's final snapshot.",
            "MetricsReporter.writeClosed must pass the snapshot on unchanged."),
    METRICS_4("METRICS-4", false,
            clauses("METRICS.2", "METRICS.5"),
            "A write opened on one thread and closed on another delivers its final snapshot to the engine's metric system unchanged.",
            "MetricsReporter.writeClosed must deliver from whatever thread calls it: keep no state of a write in thread-locals of the thread that opened it."),
    DISCOVERY_1("DISCOVERY-1", true,
            clauses("PROV.1"),
            "ServiceLoader lists the provider's class and finds it by its name, and the provider keeps that name after it has opened a write.",
            "list the class in META-INF/services/io.paimongov.spi.GovernanceProvider (and in module-info 'provides'); name() must be a constant."),
    DISCOVERY_2("DISCOVERY-2", true,
            clauses("PROV.2"),
            "The provider's name is lower case and names one provider only; an unknown name fails with a message listing every name ServiceLoader finds, this provider's among them.",
            "name() must be lower case, stable and unique."),
    DISCOVERY_3("DISCOVERY-3", true,
            clauses("PROV.3"),
            "An unknown key in the provider's own namespace (governance.<name>.*) is rejected with IllegalArgumentException naming the key.",
            "validate your own keys in open() and name the key in the message."),
    COMPACT_1("COMPACT-1", true,
            clauses("COMPACT.1", "COMPACT.4"),
            "With governance.compaction.task-threads=2 on 8 buckets with a backlog, every bucket's backlog is compacted and the table is right; as the kit sees the files read, never two compactions of one (partition, bucket) run at once; and every thread of the engine's factory runs the runnable it was given once.",
            "CompactionThreads.threadFactory() must start each thread it makes with the task it is given, once."),
    COMPACT_2("COMPACT-2", true,
            clauses("COMPACT.1", "COMPACT.2"),
            "With task-threads set to what CompactionThreads.maxThreads() allows (at most one per bucket, 8), the engine's factory makes no more threads than that and all of them run at once.",
            "CompactionThreads.maxThreads() must be what the engine allows, and the factory must not block or refuse threads."),
    READ_1("READ-1", true,
            clauses("ALLOC.16", "ALLOC.11"),
            "A governed read of 24 overlapping sorted runs under a 3 MiB budget, below what their readers hold at once, merges in passes; at every batch the engine's counter is up by at least what the allocators granted and hold (reservations of kind READ among them), no allocator passes its capacity nor the engine its memory, and the rows are the model's.",
            "charge the engine for every reservation whatever its ConsumerKind: a kind the allocator or its engine does not know is OTHER (ALLOC.16), never free."),
    READ_2("READ-2", true,
            clauses("ALLOC.16", "SPILL.5"),
            "The same table read in passes under a 3 MiB budget and at once under 48 MiB gives the model's rows both times.",
            "a spill root the runtime can write and read back (SPILL.1); every reservation granted in full when it says so."),
    READ_3("READ-3", true,
            clauses("ALLOC.16", "ALLOC.7", "CANCEL.5"),
            "A read cancelled at its first, second, a third of its, half its and its last but one reservation stops with ReadCancelledException, and once it closed the engine's counter is back at its start and no spill file of it is left.",
            "release(bytes, consumer) must give back to the engine whatever the kind, as release(bytes) does (ALLOC.7, ALLOC.16)."),
    READ_4("READ-4", true,
            clauses("ALLOC.16", "ALLOC.7"),
            "Output batches a read hands out are charged to the engine while held (its counter up by at least their bytes over where the read's plan left it), each close gives back exactly its bytes, a second close nothing; after the last the counter is back where the plan left it, and at its start once the read closed.",
            "release(bytes, consumer) of kind READ_OUTPUT must reach the engine, once per call.");

    private final String id;
    private final boolean required;
    private final List<String> clauses;
    private final String statement;
    private final String ifFails;

    Rule(String id, boolean required, List<String> clauses, String statement, String ifFails) {
        this.id = id;
        this.required = required;
        this.clauses = clauses;
        this.statement = statement;
        this.ifFails = ifFails;
    }

    private static List<String> clauses(String... ids) {
        return List.of(ids);
    }

    /** The rule whose id is {@code id} exactly (such as {@code MEM-1}); empty when there is none. */
    public static java.util.Optional<Rule> byId(String id) {
        return java.util.Arrays.stream(values()).filter(r -> r.id.equals(id)).findFirst();
    }

    /** The id used in reports and docs, such as {@code MEM-1}. */
    public String id() {
        return id;
    }

    /**
     * What the rule is about, from its id's prefix: {@code memory}, {@code write}, {@code spill},
     * {@code cancel}, {@code metrics}, {@code discovery}, {@code compaction} or {@code read}; the class name of
     * its JUnit XML test case.
     */
    public String subject() {
        String prefix = id.substring(0, id.indexOf('-'));
        return switch (prefix) {
            case "MEM" -> "memory";
            case "COMPACT" -> "compaction";
            default -> prefix.toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** Whether an allocator must pass it; optional rules skip with a reason when they do not apply. */
    public boolean required() {
        return required;
    }

    /**
     * Whether the rule is stochastic: its cases are drawn at random (a property's tries, a cancel or
     * a failure at a random point) or its outcome depends on how threads interleave (a race, a
     * sampler, compaction threads), so a defect it looks for may go unseen on one run and show on
     * the next. Raise the tries (the deep settings in docs/tck.md) to search further. Each broken
     * provider of the kit fails its rule on every run at the default settings all the same. A rule
     * that is not stochastic runs one fixed scenario and gives the same verdict every time.
     */
    public boolean stochastic() {
        return Stochastic.RULES.contains(this);
    }

    /** Holds the set, which an enum's own static fields cannot while its constants are made. */
    private static final class Stochastic {
        static final java.util.Set<Rule> RULES = java.util.EnumSet.of(
                MEM_1, MEM_2, MEM_5, MEM_12, MEM_13, WRITE_1, WRITE_2, WRITE_3, SPILL_2, SPILL_4, SPILL_5,
                SPILL_8,
                CANCEL_1, CANCEL_2, CANCEL_3, CANCEL_4, CANCEL_5, METRICS_1, COMPACT_1, COMPACT_2,
                MEM_15, MEM_16);
    }

    /** The clauses of docs/spi.md this rule checks, such as {@code ALLOC.3}; at least one. */
    public List<String> clauses() {
        return clauses;
    }

    public String statement() {
        return statement;
    }

    /** Where to look when the rule fails. */
    public String ifFails() {
        return ifFails;
    }

    /**
     * A failure message of this rule with its own hint: {@code [MEM-1] <what> (if this fails, check:
     * <ifFails()>; contract: docs/spi.md ALLOC.2, ...)}.
     */
    String fail(String what) {
        return fail(what, ifFails);
    }

    /**
     * A failure message of one check of this rule, with the hint of that check: where a rule makes
     * several checks that go wrong for different reasons, each names what to look at for its own.
     */
    String fail(String what, String hint) {
        return "[" + id + "] " + what + " (if this fails, check: " + hint + "; contract: docs/spi.md "
                + String.join(", ", clauses) + ")";
    }

    /** The hint of a rule that ran past its time limit. */
    static final String TIMED_OUT_HINT = "a call into the provider that does not return: the first stack below is the rule's"
            + " thread, and its topmost frames in the provider's classes show where it waits; every call must return or throw"
            + " promptly (if the rule is only slow on this machine, raise governance.tck.rule-timeout-s)";

    /** The clause a call that never returns breaks, whatever the rule. */
    static final String TIMED_OUT_CLAUSE = "LOCK.2";

    /** The clause a write's close that throws breaks, whatever the rule that wrote. */
    static final String CLOSE_CLAUSE = "RES.4";

    /** The hint of a write's close that threw. */
    static final String CLOSE_HINT = "the close's error names each cleanup step that failed: 'close the resource context' is"
            + " EngineResources.close(), which must give back what is still held and not throw once everything was returned;"
            + " compaction threads still running at governance.compaction.stop-timeout must end when interrupted (COMPACT.3)";

    /**
     * The first line of a failure of a write's close under this rule: {@code [SPILL-1] <what> (if
     * this fails, check: <the close's steps>; contract: docs/spi.md SPILL.3, RES.4)}.
     */
    String closeFailed(String what) {
        return withClause(what, CLOSE_HINT, CLOSE_CLAUSE);
    }

    /**
     * The first line of a time-out of this rule: {@code [MEM-4] <what> (if this fails, check: <a call
     * that does not return>; contract: docs/spi.md ALLOC.3, LOCK.2)}.
     */
    String timedOut(String what) {
        return withClause(what, TIMED_OUT_HINT, TIMED_OUT_CLAUSE);
    }

    /** A failure message with {@code hint} that cites the rule's clauses and {@code clause} after them. */
    private String withClause(String what, String hint, String clause) {
        List<String> cited = new java.util.ArrayList<>(clauses);
        if (!cited.contains(clause)) {
            cited.add(clause);
        }
        return "[" + id + "] " + what + " (if this fails, check: " + hint + "; contract: docs/spi.md " + String.join(", ", cited) + ")";
    }
}
