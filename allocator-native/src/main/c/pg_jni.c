/*
 * The JNI side of the native provider: io.paimongov.nativehost.JniAbi's natives. Each reads a
 * pg_host (paimon_governance.h) at the address Java holds and calls one callback; no state of its
 * own. Fields past the host's struct_size are never read. Built by the module's build with the
 * system C compiler (docs/native.md).
 */
#include <dlfcn.h>
#include <jni.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "paimon_governance.h"

const pg_host *pg_reference_host_open(int64_t limit_bytes, const char *args);

#define HOST(address) ((const pg_host *)(intptr_t)(address))
/* Whether the host's struct reaches past `field`. */
#define HAS(h, field) ((h)->struct_size >= offsetof(pg_host, field) + sizeof((h)->field))

enum { HAS_TRY_RESERVE = 1, HAS_RELEASE = 2, HAS_IS_CANCELLED = 4, HAS_ON_METRICS = 8, HAS_USED_BYTES = 16,
       HAS_CANCEL = 32, HAS_ON_DETACH = 64 };

static void throw_new(JNIEnv *env, const char *type, const char *message) {
    jclass c = (*env)->FindClass(env, type);
    if (c != NULL) {
        (*env)->ThrowNew(env, c, message);
    }
}

JNIEXPORT jint JNICALL Java_io_paimongov_nativehost_JniAbi_abiVersion0(JNIEnv *env, jclass c) {
    return PG_ABI_VERSION;
}

JNIEXPORT jint JNICALL Java_io_paimongov_nativehost_JniAbi_hostStructSize0(JNIEnv *env, jclass c) {
    return (jint)sizeof(pg_host);
}

JNIEXPORT jlong JNICALL Java_io_paimongov_nativehost_JniAbi_open0(
        JNIEnv *env, jclass c, jstring library, jstring symbol, jlong limit, jstring args) {
    const char *a = (*env)->GetStringUTFChars(env, args, NULL);
    if (a == NULL) {
        return 0;
    }
    const pg_host *host = NULL;
    if (library == NULL) {
        host = pg_reference_host_open((int64_t)limit, a);
    } else {
        const char *path = (*env)->GetStringUTFChars(env, library, NULL);
        const char *name = path == NULL ? NULL : (*env)->GetStringUTFChars(env, symbol, NULL);
        if (name != NULL) {
            void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            void *open = handle == NULL ? NULL : dlsym(handle, name);
            if (open == NULL) {
                const char *why = dlerror();
                throw_new(env, "java/lang/IllegalArgumentException", why == NULL ? "dlopen or dlsym failed" : why);
            } else {
                pg_host_open_fn fn;
                memcpy(&fn, &open, sizeof fn);
                host = fn((int64_t)limit, a);
            }
            (*env)->ReleaseStringUTFChars(env, symbol, name);
        }
        if (path != NULL) {
            (*env)->ReleaseStringUTFChars(env, library, path);
        }
    }
    (*env)->ReleaseStringUTFChars(env, args, a);
    return (jlong)(intptr_t)host;
}

/* {abi_version, struct_size, callback_timeout_ms, cancel_poll_ms, the HAS_* of the callbacks set} */
JNIEXPORT jlongArray JNICALL Java_io_paimongov_nativehost_JniAbi_describe0(JNIEnv *env, jclass c, jlong address) {
    const pg_host *h = HOST(address);
    jlong values[5] = {h->abi_version, h->struct_size, 0, 0, 0};
    if (HAS(h, callback_timeout_ms)) {
        values[2] = h->callback_timeout_ms;
    }
    if (HAS(h, cancel_poll_ms)) {
        values[3] = h->cancel_poll_ms;
    }
    jlong mask = 0;
    if (HAS(h, try_reserve) && h->try_reserve != NULL) mask |= HAS_TRY_RESERVE;
    if (HAS(h, release) && h->release != NULL) mask |= HAS_RELEASE;
    if (HAS(h, is_cancelled) && h->is_cancelled != NULL) mask |= HAS_IS_CANCELLED;
    if (HAS(h, on_metrics) && h->on_metrics != NULL) mask |= HAS_ON_METRICS;
    if (HAS(h, used_bytes) && h->used_bytes != NULL) mask |= HAS_USED_BYTES;
    if (HAS(h, cancel) && h->cancel != NULL) mask |= HAS_CANCEL;
    if (HAS(h, on_detach) && h->on_detach != NULL) mask |= HAS_ON_DETACH;
    values[4] = mask;
    jlongArray out = (*env)->NewLongArray(env, 5);
    if (out != NULL) {
        (*env)->SetLongArrayRegion(env, out, 0, 5, values);
    }
    return out;
}

JNIEXPORT jlong JNICALL Java_io_paimongov_nativehost_JniAbi_tryReserve0(
        JNIEnv *env, jclass c, jlong address, jlong bytes, jint consumer) {
    const pg_host *h = HOST(address);
    return (jlong)h->try_reserve(h->ctx, (int64_t)bytes, (int32_t)consumer);
}

JNIEXPORT jlong JNICALL Java_io_paimongov_nativehost_JniAbi_release0(
        JNIEnv *env, jclass c, jlong address, jlong bytes, jint consumer) {
    const pg_host *h = HOST(address);
    return (jlong)h->release(h->ctx, (int64_t)bytes, (int32_t)consumer);
}

JNIEXPORT jint JNICALL Java_io_paimongov_nativehost_JniAbi_isCancelled0(JNIEnv *env, jclass c, jlong address) {
    const pg_host *h = HOST(address);
    return (jint)h->is_cancelled(h->ctx);
}

JNIEXPORT jlong JNICALL Java_io_paimongov_nativehost_JniAbi_usedBytes0(JNIEnv *env, jclass c, jlong address) {
    const pg_host *h = HOST(address);
    return HAS(h, used_bytes) && h->used_bytes != NULL ? (jlong)h->used_bytes(h->ctx) : -1;
}

JNIEXPORT jint JNICALL Java_io_paimongov_nativehost_JniAbi_cancel0(JNIEnv *env, jclass c, jlong address, jstring reason) {
    const pg_host *h = HOST(address);
    if (!HAS(h, cancel) || h->cancel == NULL) {
        return -1;
    }
    const char *r = (*env)->GetStringUTFChars(env, reason, NULL);
    if (r == NULL) {
        return -1;
    }
    jint result = (jint)h->cancel(h->ctx, r);
    (*env)->ReleaseStringUTFChars(env, reason, r);
    return result;
}

/* values: write_id, then the pg_metrics fields from budget_bytes to cleanup_failures, in order. */
JNIEXPORT void JNICALL Java_io_paimongov_nativehost_JniAbi_onMetrics0(
        JNIEnv *env, jclass c, jlong address, jlongArray values, jboolean final_report) {
    const pg_host *h = HOST(address);
    if (!HAS(h, on_metrics) || h->on_metrics == NULL) {
        return;
    }
    pg_metrics m;
    memset(&m, 0, sizeof m);
    m.struct_size = (uint32_t)sizeof m;
    m.final_report = final_report ? 1 : 0;
    jsize count = (*env)->GetArrayLength(env, values);
    jsize fields = (jsize)((sizeof m - offsetof(pg_metrics, write_id)) / sizeof(int64_t));
    (*env)->GetLongArrayRegion(env, values, 0, count < fields ? count : fields, (jlong *)&m.write_id);
    if ((*env)->ExceptionCheck(env)) {
        return;
    }
    h->on_metrics(h->ctx, &m);
}

JNIEXPORT void JNICALL Java_io_paimongov_nativehost_JniAbi_onDetach0(JNIEnv *env, jclass c, jlong address) {
    const pg_host *h = HOST(address);
    if (HAS(h, on_detach) && h->on_detach != NULL) {
        h->on_detach(h->ctx);
    }
}
