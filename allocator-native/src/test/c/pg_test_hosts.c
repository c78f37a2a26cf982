/*
 * Host libraries for the tests, written against paimon_governance.h alone: pg_host_open makes a
 * host with a hard limit whose behaviour `args` picks ("key=value,..."):
 *
 *   mode=correct          a correct host (the default)
 *   mode=overgrant        try_reserve grants twice what it is asked for
 *   mode=double-release   release takes the bytes off its count twice
 *   mode=cancel-hangs     is_cancelled does not answer for hang ms
 *   mode=slow-reserve     try_reserve does not answer for hang ms
 *   mode=reserve-error    try_reserve returns -5
 *   mode=release-error    release returns -7
 *   mode=release-overclaim release answers twice the bytes it was given back
 *   mode=cancel-nonsense  is_cancelled answers 7
 *   mode=bad-abi          states abi_version 99
 *   mode=no-release       leaves release NULL
 *   timeout=MS            callback_timeout_ms (0: the provider's default; none: PG_NO_TIMEOUT)
 *   hang=MS               how long the hanging modes hang (default 600000)
 *   record=PATH           at on_detach, writes one line per consumer: code, bytes reserved in all,
 *                         most held at once, bytes held at the end; then "used <n>" and "peak <n>"
 *   metrics=PATH          appends one line per on_metrics call: write_id final_report input_rows
 *   strict=1              on_detach keeps ctx and marks it detached; any call after that aborts the
 *                         process (the test of "never called after detach" fails by crashing)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "paimon_governance.h"

#define CONSUMERS 10

typedef struct test_host {
    pg_host host;
    char mode[32];
    int64_t limit;
    int64_t hang_ms;
    char record[1024];
    char metrics[1024];
    _Atomic int64_t used;
    _Atomic int64_t peak;
    _Atomic int64_t total[CONSUMERS];
    _Atomic int64_t held[CONSUMERS];
    _Atomic int64_t held_peak[CONSUMERS];
    _Atomic int32_t cancelled;
    int strict;
    _Atomic int32_t detached;
} test_host;

/* A strict host's check at the top of every callback. */
static void alive(test_host *t, const char *callback) {
    if (atomic_load(&t->detached)) {
        fprintf(stderr, "pg_test_hosts: %s called after on_detach\n", callback);
        abort();
    }
}

static int is(const test_host *t, const char *mode) {
    return strcmp(t->mode, mode) == 0;
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int slot(int32_t consumer) {
    return consumer >= 0 && consumer < CONSUMERS ? consumer : 0;
}

static void raise_to(_Atomic int64_t *peak, int64_t value) {
    int64_t now = atomic_load(peak);
    while (value > now && !atomic_compare_exchange_weak(peak, &now, value)) {
    }
}

static int64_t try_reserve(void *ctx, int64_t bytes, int32_t consumer) {
    test_host *t = ctx;
    alive(t, "try_reserve");
    if (is(t, "slow-reserve")) {
        sleep_ms(t->hang_ms);
    }
    if (is(t, "reserve-error")) {
        return -5;
    }
    int64_t grant = is(t, "overgrant") ? 2 * bytes : bytes;
    int64_t used = atomic_load(&t->used);
    do {
        if (grant > t->limit - used) {
            return 0;
        }
    } while (!atomic_compare_exchange_weak(&t->used, &used, used + grant));
    raise_to(&t->peak, used + grant);
    int s = slot(consumer);
    atomic_fetch_add(&t->total[s], grant);
    raise_to(&t->held_peak[s], atomic_fetch_add(&t->held[s], grant) + grant);
    return grant;
}

static int64_t release(void *ctx, int64_t bytes, int32_t consumer) {
    test_host *t = ctx;
    alive(t, "release");
    if (is(t, "release-error")) {
        return -7;
    }
    int64_t off = is(t, "double-release") ? 2 * bytes : bytes;
    atomic_fetch_sub(&t->held[slot(consumer)], off);
    atomic_fetch_sub(&t->used, off);
    return is(t, "release-overclaim") ? 2 * bytes : bytes;
}

static int32_t is_cancelled(void *ctx) {
    test_host *t = ctx;
    alive(t, "is_cancelled");
    if (is(t, "cancel-hangs")) {
        sleep_ms(t->hang_ms);
    }
    if (is(t, "cancel-nonsense")) {
        return 7;
    }
    return atomic_load(&t->cancelled);
}

static int64_t used_bytes(void *ctx) {
    alive(ctx, "used_bytes");
    return atomic_load(&((test_host *)ctx)->used);
}

static int32_t cancel(void *ctx, const char *reason) {
    alive(ctx, "cancel");
    atomic_store(&((test_host *)ctx)->cancelled, 1);
    return 0;
}

static void on_metrics(void *ctx, const pg_metrics *m) {
    test_host *t = ctx;
    alive(t, "on_metrics");
    if (t->metrics[0] == '\0' || m->struct_size < sizeof(pg_metrics)) {
        return;
    }
    FILE *f = fopen(t->metrics, "a");
    if (f != NULL) {
        fprintf(f, "%lld %u %lld\n", (long long)m->write_id, m->final_report, (long long)m->input_rows);
        fclose(f);
    }
}

static void on_detach(void *ctx) {
    test_host *t = ctx;
    alive(t, "on_detach");
    if (t->record[0] != '\0') {
        FILE *f = fopen(t->record, "w");
        if (f != NULL) {
            for (int i = 0; i < CONSUMERS; i++) {
                fprintf(f, "%d %lld %lld %lld\n", i, (long long)atomic_load(&t->total[i]),
                        (long long)atomic_load(&t->held_peak[i]), (long long)atomic_load(&t->held[i]));
            }
            fprintf(f, "used %lld\npeak %lld\n", (long long)atomic_load(&t->used), (long long)atomic_load(&t->peak));
            fclose(f);
        }
    }
    if (t->strict) {
        atomic_store(&t->detached, 1);
        return;
    }
    free(t);
}

/* Copies the value of `key` in "k=v,k=v" into out (size n); 1 when found. */
static int arg(const char *args, const char *key, char *out, size_t n) {
    size_t k = strlen(key);
    for (const char *p = args; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end == NULL ? strlen(p) : (size_t)(end - p);
        if (len > k && strncmp(p, key, k) == 0 && p[k] == '=') {
            size_t v = len - k - 1 < n - 1 ? len - k - 1 : n - 1;
            memcpy(out, p + k + 1, v);
            out[v] = '\0';
            return 1;
        }
        p = end == NULL ? NULL : end + 1;
    }
    return 0;
}

const pg_host *pg_host_open(int64_t limit_bytes, const char *args) {
    test_host *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return NULL;
    }
    char value[64];
    strcpy(t->mode, "correct");
    arg(args, "mode", t->mode, sizeof t->mode);
    t->hang_ms = arg(args, "hang", value, sizeof value) ? atoll(value) : 600000;
    arg(args, "record", t->record, sizeof t->record);
    arg(args, "metrics", t->metrics, sizeof t->metrics);
    t->strict = arg(args, "strict", value, sizeof value) && strcmp(value, "1") == 0;
    t->limit = limit_bytes;
    t->host.abi_version = is(t, "bad-abi") ? 99 : PG_ABI_VERSION;
    t->host.struct_size = sizeof(pg_host);
    t->host.ctx = t;
    t->host.callback_timeout_ms = !arg(args, "timeout", value, sizeof value) ? 0
            : strcmp(value, "none") == 0 ? PG_NO_TIMEOUT : (uint32_t)atol(value);
    t->host.try_reserve = try_reserve;
    t->host.release = is(t, "no-release") ? NULL : release;
    t->host.is_cancelled = is_cancelled;
    t->host.on_metrics = on_metrics;
    t->host.used_bytes = used_bytes;
    t->host.cancel = cancel;
    t->host.on_detach = on_detach;
    return &t->host;
}
