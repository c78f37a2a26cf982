/*
 * paimon_governance.h: the C ABI through which a native host (a C, C++ or Rust engine that embeds
 * the JVM) governs paimon-governance's Java writer with its own memory tracker and its own cancel.
 *
 * The host fills one pg_host with callbacks and an opaque context and hands it to the JVM:
 *   - embedding the JVM: pg_attach() of paimon_governance_jni.h, then writes with
 *     governance.provider=native and governance.native.host=<the name given to pg_attach>;
 *   - from a shared library of its own (the kit, the CLI): a function named pg_host_open
 *     (pg_host_open_fn) that the provider loads; see docs/native.md.
 * The provider ("native", module allocator-native) then asks the host before it takes memory,
 * tells it when memory goes back, and polls it for a cancel.
 *
 * VERSIONING. PG_ABI_VERSION is the ABI's major version: it changes only when a callback's meaning
 * or signature changes, and a provider refuses a pg_host of a major version it does not know. New
 * callbacks are added at the end of pg_host (and new fields at the end of pg_metrics) without a new
 * major version; struct_size tells each side how much of the other's struct exists. A provider
 * reads no field past the host's struct_size, so a host built against an older header works with a
 * newer provider; a host reads no field of pg_metrics past its struct_size.
 *
 * THREADING. Every callback may be called from any thread, several at once (they are called by the
 * JVM's threads, never by the thread that called pg_attach unless it writes itself): the host makes
 * them thread-safe. The provider calls each callback on a thread of its own and waits for it at
 * most callback_timeout_ms: a callback that blocks longer fails the host (below), it does not hang
 * the writer. A host that promises never to block sets PG_NO_TIMEOUT and is called directly.
 * Callbacks must not call into the JVM (no JNI calls back into paimon-governance) and should return
 * within microseconds: try_reserve is called for every write-buffer page.
 *
 * FAILURES. A required callback that returns an error (a negative value), answers nonsense (grants
 * other than all or nothing, takes back other than what was released, is_cancelled other than 0
 * or 1) or does not answer within callback_timeout_ms fails the host: every later request for
 * memory on it throws io.paimongov.nativehost.NativeCallbackException naming that callback, so its
 * writes stop at their next page or reservation, with nothing committed. Releases still go to a
 * failed host, so that what it granted comes back. A grant that answers nonsense is released again
 * before the error is thrown. The JVM never crashes on a host's answer; it cannot survive a host's
 * callback that crashes the process.
 *
 * OWNERSHIP. The host owns the pg_host and its ctx. Both stay valid and unchanged from pg_attach
 * (or pg_host_open) until pg_detach returned a value other than -1 (or on_detach was called): the
 * provider reads the struct where the host keeps it and copies nothing. No callback is called after
 * that; on_detach, if set, is the last call and the host may free ctx in it.
 *
 * AFTER CLOSE. When one write closes, every byte it reserved has been released to the host (a
 * release the host refused is offered again at close). Detaching cancels the writes still open on
 * the host, waits for them to close and returns what they still hold (0 unless the host refused
 * releases); after that the provider never calls the host.
 */
#ifndef PAIMON_GOVERNANCE_H
#define PAIMON_GOVERNANCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI's major version; a pg_host states the one it was built against in abi_version. */
#define PG_ABI_VERSION 1

/** callback_timeout_ms of a host whose callbacks never block: the provider calls them on its own
 * threads directly, without the hand-over to a thread of the host's that bounds a call (a round trip
 * of about 0.1 us instead of tens of us; docs/performance.md, bench native). A callback of such a
 * host that blocks blocks the writer; one that fails or answers nonsense still fails the host. */
#define PG_NO_TIMEOUT 0xFFFFFFFFu

/** What memory is for: the consumer argument of try_reserve and release (SegmentAllocator.ConsumerKind in Java).
 * Codes are never reused; a later version may add codes, which a host treats as PG_CONSUMER_OTHER. */
enum pg_consumer {
    PG_CONSUMER_OTHER = 0,        /* anything else, and reservations engine code makes through the runtime */
    PG_CONSUMER_WRITE_BUFFER = 1, /* write-buffer pages: rows buffered and sorted before a flush */
    PG_CONSUMER_WRITER = 2,       /* open file writers: format encoders, compression, output buffers */
    PG_CONSUMER_SPILL_IO = 3,     /* buffers and channels of spill runs and their merges */
    PG_CONSUMER_COMPACTION = 4,   /* compaction tasks: readers, merge state and writer */
    PG_CONSUMER_INDEX = 5,        /* bucket and key indexes (dynamic buckets, cross-partition keys) */
    PG_CONSUMER_LOOKUP = 6,       /* lookup caches (lookup changelog, deletion vectors) */
    PG_CONSUMER_COMMIT = 7,       /* commit messages kept for writers closed before the commit */
    PG_CONSUMER_READ = 8,         /* governed reads: format readers, merge state, spilled runs, planning */
    PG_CONSUMER_READ_OUTPUT = 9   /* rows a read handed to the engine, until the engine lets go of them */
};

/** A short name of a consumer code, for logs and per-consumer trackers. */
static inline const char *pg_consumer_name(int32_t consumer) {
    switch (consumer) {
    case PG_CONSUMER_WRITE_BUFFER: return "write buffer";
    case PG_CONSUMER_WRITER: return "writer";
    case PG_CONSUMER_SPILL_IO: return "spill I/O";
    case PG_CONSUMER_COMPACTION: return "compaction";
    case PG_CONSUMER_INDEX: return "index";
    case PG_CONSUMER_LOOKUP: return "lookup";
    case PG_CONSUMER_COMMIT: return "commit messages";
    case PG_CONSUMER_READ: return "read";
    case PG_CONSUMER_READ_OUTPUT: return "read output";
    default: return "other";
    }
}

/** One write's metrics, passed to on_metrics; valid only during the call. Fields as in
 * docs/metrics.md (MetricsSnapshot). */
typedef struct pg_metrics {
    uint32_t struct_size;       /* sizeof(pg_metrics) of the provider's header: read no field past it */
    uint32_t final_report;      /* 1 for the write's last report, at its close; else 0 */
    int64_t write_id;           /* the write's number within this host, from 1 */
    int64_t budget_bytes;
    int64_t reserved_bytes;
    int64_t peak_reserved_bytes;
    int64_t page_bytes;
    int64_t estimated_bytes;
    int64_t input_rows;
    int64_t input_bytes;
    int64_t output_files;
    int64_t output_bytes;
    int64_t spill_count;
    int64_t spill_files;
    int64_t spill_bytes;
    int64_t compaction_count;
    int64_t cancellations;
    int64_t resource_exhausted_count;
    int64_t cleanup_failures;
} pg_metrics;

/** A host: its callbacks and its context. See the notes at the top of this file. */
typedef struct pg_host {
    uint32_t abi_version;          /* PG_ABI_VERSION the host was built against */
    uint32_t struct_size;          /* sizeof(pg_host) the host was built with */
    void *ctx;                     /* opaque; passed back to every callback */
    uint32_t callback_timeout_ms;  /* how long a callback may take; 0: 10000; PG_NO_TIMEOUT: no bound */
    uint32_t cancel_poll_ms;       /* how often is_cancelled is polled while a write is open; 0: 10 */

    /* Required. Reserves `bytes` (> 0) for `consumer` (enum pg_consumer) all or nothing: returns
     * `bytes` when granted, 0 when refused (the writer then spills or fails typed), a negative
     * error code when the host failed. */
    int64_t (*try_reserve)(void *ctx, int64_t bytes, int32_t consumer);

    /* Required. Takes back `bytes` (> 0) that try_reserve granted for `consumer`; returns `bytes`,
     * or a negative error code when the host did not take them back (they stay charged, and are
     * offered again when the write closes). Never called for more than is granted and not yet
     * released, per write. */
    int64_t (*release)(void *ctx, int64_t bytes, int32_t consumer);

    /* Required. 1 once the host cancelled the work the writes belong to, else 0; negative on error.
     * Polled every cancel_poll_ms by one thread per host while writes are open. Once it returned 1
     * it must keep returning 1. */
    int32_t (*is_cancelled)(void *ctx);

    /* Optional (NULL: none). Receives a write's metrics, periodically and at its close. A failure
     * here is logged and counted, never fails the write. */
    void (*on_metrics)(void *ctx, const pg_metrics *metrics);

    /* Optional. The bytes the host counts as granted and not released, by its own counter: what the
     * conformance kit (and `tck --provider native`) reads as the engine's counter. */
    int64_t (*used_bytes)(void *ctx);

    /* Optional. Cancels the host's work as the host itself would (is_cancelled returns 1 after it):
     * the kit's and the CLI's way to cancel a write from the host's side. 0 on success. */
    int32_t (*cancel)(void *ctx, const char *reason);

    /* Optional. Called once, after every other call of this host has returned: the host may free
     * ctx (and, for pg_host_open, the pg_host) in it. */
    void (*on_detach)(void *ctx);
} pg_host;

/**
 * The function a host library exports for the kit and the CLI, under the name pg_host_open (or a
 * name given with the system property paimon.governance.native.symbol): a new host with a hard
 * limit of `limit_bytes` (the engine budget the kit asks for), configured by `args` (a string the
 * library defines; "" by default). Returns NULL on failure. The host is given back with on_detach,
 * which such a host must set.
 */
typedef const pg_host *(*pg_host_open_fn)(int64_t limit_bytes, const char *args);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_GOVERNANCE_H */
