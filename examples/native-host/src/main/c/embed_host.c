/*
 * The embedding example of docs/native.md: a native host that starts the JVM with
 * JNI_CreateJavaVM, governs paimon-governance's Java writer with a memory tracker of its own (a
 * hard limit) and its own cancel, and checks from its side that everything it granted came back.
 *
 *   embed_host --classpath CP --warehouse DIR [--rows N] [--limit-mb MB] [--budget SIZE]
 *              [--cancel-after-rows N] [--value-bytes N] [--jvm-option OPT]...
 *
 * Two queries, each with its own tracker attached with pg_attach:
 *   query-1 writes --rows rows of a primary-key table and commits;
 *   query-2 writes rows until its coordinator (a host thread) cancels it, once the write's
 *           metrics (on_metrics) say it passed --cancel-after-rows.
 * Prints one JSON object on stdout (docs/native.md lists its keys); the JVM's own output goes to
 * stderr. Exit code 0 when "verified" is true, 1 when not, 2 on bad arguments or a JVM that did
 * not start.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "paimon_governance_jni.h"

#define CONSUMERS 10

/* One query's memory tracker: the host's own count, with a hard limit. */
typedef struct tracker {
    pg_host host;
    const char *name;
    int64_t limit;
    _Atomic int64_t used;
    _Atomic int64_t peak;
    _Atomic int64_t refused;
    _Atomic int64_t by_consumer[CONSUMERS];
    _Atomic int64_t rows_seen;
    _Atomic int32_t cancelled;
} tracker;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t try_reserve(void *ctx, int64_t bytes, int32_t consumer) {
    tracker *t = ctx;
    int64_t used = atomic_load(&t->used);
    do {
        if (bytes > t->limit - used) {
            atomic_fetch_add(&t->refused, 1);
            return 0;
        }
    } while (!atomic_compare_exchange_weak(&t->used, &used, used + bytes));
    int64_t peak = atomic_load(&t->peak);
    while (used + bytes > peak && !atomic_compare_exchange_weak(&t->peak, &peak, used + bytes)) {
    }
    atomic_fetch_add(&t->by_consumer[consumer >= 0 && consumer < CONSUMERS ? consumer : 0], bytes);
    return bytes;
}

static int64_t release(void *ctx, int64_t bytes, int32_t consumer) {
    tracker *t = ctx;
    atomic_fetch_sub(&t->used, bytes);
    return bytes;
}

static int32_t is_cancelled(void *ctx) {
    return atomic_load(&((tracker *)ctx)->cancelled);
}

static void on_metrics(void *ctx, const pg_metrics *m) {
    atomic_store(&((tracker *)ctx)->rows_seen, m->input_rows);
}

static void tracker_init(tracker *t, const char *name, int64_t limit) {
    memset(t, 0, sizeof *t);
    t->name = name;
    t->limit = limit;
    t->host.abi_version = PG_ABI_VERSION;
    t->host.struct_size = sizeof(pg_host);
    t->host.ctx = t;
    t->host.try_reserve = try_reserve;
    t->host.release = release;
    t->host.is_cancelled = is_cancelled;
    t->host.on_metrics = on_metrics;
}

/* The coordinator of query-2: cancels it once its metrics passed the row count, or after a minute. */
typedef struct coordinator {
    tracker *query;
    int64_t after_rows;
    _Atomic int32_t done;
    int64_t cancelled_at_ms;
    int64_t rows_at_cancel;
} coordinator;

static void *coordinate(void *arg) {
    coordinator *c = arg;
    int64_t give_up = now_ms() + 60000;
    while (!atomic_load(&c->done) && now_ms() < give_up) {
        int64_t rows = atomic_load(&c->query->rows_seen);
        if (rows >= c->after_rows) {
            c->rows_at_cancel = rows;
            c->cancelled_at_ms = now_ms();
            atomic_store(&c->query->cancelled, 1);
            return NULL;
        }
        struct timespec pause = {0, 5 * 1000000L};
        nanosleep(&pause, NULL);
    }
    c->rows_at_cancel = atomic_load(&c->query->rows_seen);
    c->cancelled_at_ms = now_ms();
    atomic_store(&c->query->cancelled, 1);
    return NULL;
}

/* EmbeddedWrites.write(...) -> its long[6], or all -1 when the call itself failed. */
static void write_table(JNIEnv *env, const char *warehouse, const char *table, const char *host, int64_t rows,
                        int value_bytes, const char *budget, jlong out[6]) {
    for (int i = 0; i < 6; i++) {
        out[i] = -1;
    }
    jclass writes = (*env)->FindClass(env, "io/paimongov/example/nativehost/EmbeddedWrites");
    jmethodID write = writes == NULL ? NULL
            : (*env)->GetStaticMethodID(env, writes, "write", "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;JILjava/lang/String;)[J");
    if (write == NULL || pg_jni_failed_(env)) {
        pg_jni_failed_(env);
        return;
    }
    jstring w = (*env)->NewStringUTF(env, warehouse);
    jstring t = (*env)->NewStringUTF(env, table);
    jstring h = (*env)->NewStringUTF(env, host);
    jstring b = (*env)->NewStringUTF(env, budget);
    jlongArray result = (jlongArray)(*env)->CallStaticObjectMethod(env, writes, write, w, t, h, (jlong)rows, (jint)value_bytes, b);
    if (!pg_jni_failed_(env) && result != NULL) {
        (*env)->GetLongArrayRegion(env, result, 0, 6, out);
        pg_jni_failed_(env);
    }
}

static const char *arg_value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "embed_host: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return argv[++*i];
}

int main(int argc, char **argv) {
    const char *classpath = NULL, *warehouse = NULL, *budget = "64m";
    int64_t rows = 200000, limit_mb = 24, cancel_after = 50000;
    int value_bytes = 64;
    const char *extra[32];
    int extras = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--classpath") == 0) classpath = arg_value(argc, argv, &i);
        else if (strcmp(argv[i], "--warehouse") == 0) warehouse = arg_value(argc, argv, &i);
        else if (strcmp(argv[i], "--rows") == 0) rows = atoll(arg_value(argc, argv, &i));
        else if (strcmp(argv[i], "--limit-mb") == 0) limit_mb = atoll(arg_value(argc, argv, &i));
        else if (strcmp(argv[i], "--budget") == 0) budget = arg_value(argc, argv, &i);
        else if (strcmp(argv[i], "--cancel-after-rows") == 0) cancel_after = atoll(arg_value(argc, argv, &i));
        else if (strcmp(argv[i], "--value-bytes") == 0) value_bytes = atoi(arg_value(argc, argv, &i));
        else if (strcmp(argv[i], "--jvm-option") == 0 && extras < 32) extra[extras++] = arg_value(argc, argv, &i);
        else {
            fprintf(stderr, "embed_host: unknown argument '%s' (see the comment at the top of embed_host.c)\n", argv[i]);
            return 2;
        }
    }
    if (classpath == NULL || warehouse == NULL || rows < 1 || limit_mb < 1 || cancel_after < 1) {
        fprintf(stderr, "embed_host: --classpath and --warehouse are required; --rows, --limit-mb and --cancel-after-rows must be positive\n");
        return 2;
    }

    char *cp_option = malloc(strlen(classpath) + 32);
    sprintf(cp_option, "-Djava.class.path=%s", classpath);
    JavaVMOption options[34];
    int n = 0;
    options[n++].optionString = cp_option;
    options[n++].optionString = "-Xmx512m";
    for (int i = 0; i < extras; i++) {
        options[n++].optionString = (char *)extra[i];
    }
    JavaVMInitArgs vm_args = {JNI_VERSION_10, n, options, JNI_FALSE};
    JavaVM *vm;
    JNIEnv *env;
    if (JNI_CreateJavaVM(&vm, (void **)&env, &vm_args) != JNI_OK) {
        fprintf(stderr, "embed_host: JNI_CreateJavaVM failed\n");
        return 2;
    }

    int64_t limit = limit_mb << 20;
    tracker q1, q2;
    tracker_init(&q1, "query-1", limit);
    tracker_init(&q2, "query-2", limit);
    int attached = pg_attach(env, q1.name, &q1.host) == 0 && pg_attach(env, q2.name, &q2.host) == 0;

    jlong first[6] = {-1, -1, -1, -1, -1, -1}, second[6] = {-1, -1, -1, -1, -1, -1};
    coordinator c = {&q2, cancel_after, 0, 0, 0};
    int64_t returned_at = 0;
    if (attached) {
        write_table(env, warehouse, "t1", q1.name, rows, value_bytes, budget, first);
        pthread_t coordinator_thread;
        pthread_create(&coordinator_thread, NULL, coordinate, &c);
        write_table(env, warehouse, "t2", q2.name, -1, value_bytes, budget, second);
        returned_at = now_ms();
        atomic_store(&c.done, 1);
        pthread_join(coordinator_thread, NULL);
    }
    int64_t detached1 = attached ? pg_detach(env, q1.name) : -1;
    int64_t detached2 = attached ? pg_detach(env, q2.name) : -1;

    int64_t held_at_end = atomic_load(&q1.used) + atomic_load(&q2.used);
    int64_t peak = atomic_load(&q1.peak) > atomic_load(&q2.peak) ? atomic_load(&q1.peak) : atomic_load(&q2.peak);
    int cancelled = second[0] == 1;
    int verified = attached && first[0] == 0 && first[1] == rows && first[2] == rows && first[3] == 1
            && cancelled && second[3] == 0 && c.rows_at_cancel >= cancel_after
            && held_at_end == 0 && detached1 == 0 && detached2 == 0 && peak > 0 && peak <= limit;

    printf("{\"verified\":%s,\"hostPeakBytes\":%lld,\"hostLimitBytes\":%lld,\"heldAtEnd\":%lld,\"cancelled\":%s,"
           "\"firstWrite\":{\"outcome\":\"%s\",\"rowsWritten\":%lld,\"rowsReadBack\":%lld,\"snapshots\":%lld,\"spillBytes\":%lld,"
           "\"peakReservedBytes\":%lld,\"hostRefusals\":%lld,\"hostBytesByConsumer\":{",
           verified ? "true" : "false", (long long)peak, (long long)limit, (long long)held_at_end, cancelled ? "true" : "false",
           first[0] == 0 ? "committed" : first[0] == 1 ? "cancelled" : "failed", (long long)first[1], (long long)first[2],
           (long long)first[3], (long long)first[4], (long long)first[5], (long long)atomic_load(&q1.refused));
    for (int i = 0; i < CONSUMERS; i++) {
        printf("%s\"%s\":%lld", i == 0 ? "" : ",", pg_consumer_name(i), (long long)atomic_load(&q1.by_consumer[i]));
    }
    printf("}},\"secondWrite\":{\"outcome\":\"%s\",\"rowsWritten\":%lld,\"snapshots\":%lld,\"rowsSeenAtCancel\":%lld,"
           "\"cancelLatencyMillis\":%lld,\"hostRefusals\":%lld},\"detachHeldBytes\":[%lld,%lld]}\n",
           second[0] == 0 ? "committed" : second[0] == 1 ? "cancelled" : "failed", (long long)second[1], (long long)second[3],
           (long long)c.rows_at_cancel, (long long)(returned_at > 0 ? returned_at - c.cancelled_at_ms : -1),
           (long long)atomic_load(&q2.refused), (long long)detached1, (long long)detached2);
    fflush(stdout);
    (*vm)->DestroyJavaVM(vm);
    free(cp_option);
    return verified ? 0 : 1;
}
