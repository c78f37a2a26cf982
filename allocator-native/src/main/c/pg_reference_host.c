/*
 * The reference host: a correct pg_host (paimon_governance.h) with a hard limit, one counter per
 * consumer and a cancel flag, built into the provider's JNI library. The kit and the CLI use it
 * when no host library is named (docs/native.md); it is also the model a host's tracker can follow.
 * Lock-free: a compare-and-swap on the total keeps the limit under concurrent calls. Its args:
 * "" for the provider's default callback timeout, "timeout=none" for PG_NO_TIMEOUT (it never blocks).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "paimon_governance.h"

#define CONSUMERS 10

typedef struct reference_host {
    pg_host host;
    int64_t limit;
    _Atomic int64_t used;
    _Atomic int64_t by_consumer[CONSUMERS];
    _Atomic int32_t cancelled;
} reference_host;

static int slot(int32_t consumer) {
    return consumer >= 0 && consumer < CONSUMERS ? consumer : PG_CONSUMER_OTHER;
}

static int64_t try_reserve(void *ctx, int64_t bytes, int32_t consumer) {
    reference_host *r = ctx;
    int64_t used = atomic_load(&r->used);
    do {
        if (bytes <= 0 || bytes > r->limit - used) {
            return 0;
        }
    } while (!atomic_compare_exchange_weak(&r->used, &used, used + bytes));
    atomic_fetch_add(&r->by_consumer[slot(consumer)], bytes);
    return bytes;
}

static int64_t release(void *ctx, int64_t bytes, int32_t consumer) {
    reference_host *r = ctx;
    atomic_fetch_sub(&r->by_consumer[slot(consumer)], bytes);
    atomic_fetch_sub(&r->used, bytes);
    return bytes;
}

static int32_t is_cancelled(void *ctx) {
    return atomic_load(&((reference_host *)ctx)->cancelled);
}

static int64_t used_bytes(void *ctx) {
    return atomic_load(&((reference_host *)ctx)->used);
}

static int32_t cancel(void *ctx, const char *reason) {
    (void)reason;
    atomic_store(&((reference_host *)ctx)->cancelled, 1);
    return 0;
}

static void on_detach(void *ctx) {
    free(ctx);
}

const pg_host *pg_reference_host_open(int64_t limit_bytes, const char *args) {
    if (limit_bytes <= 0) {
        return NULL;
    }
    reference_host *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return NULL;
    }
    r->limit = limit_bytes;
    r->host.abi_version = PG_ABI_VERSION;
    r->host.struct_size = sizeof(pg_host);
    r->host.ctx = r;
    r->host.callback_timeout_ms = args != NULL && strstr(args, "timeout=none") != NULL ? PG_NO_TIMEOUT : 0;
    r->host.try_reserve = try_reserve;
    r->host.release = release;
    r->host.is_cancelled = is_cancelled;
    r->host.used_bytes = used_bytes;
    r->host.cancel = cancel;
    r->host.on_detach = on_detach;
    return &r->host;
}
