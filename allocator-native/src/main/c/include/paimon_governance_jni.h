/*
 * paimon_governance_jni.h: attaching a pg_host (paimon_governance.h) from a host that embeds the
 * JVM with JNI_CreateJavaVM, with the project's jars on its class path. Header-only; C and C++.
 *
 *   pg_attach(env, "query-42", &host);    // writes with governance.native.host=query-42 use it
 *   ... governed writes run on JVM threads ...
 *   int64_t held = pg_detach(env, "query-42");   // 0: everything reserved came back
 *
 * Both must be called on a thread attached to the JVM (the one that created it, or one attached
 * with AttachCurrentThread), never from inside a callback of the host.
 */
#ifndef PAIMON_GOVERNANCE_JNI_H
#define PAIMON_GOVERNANCE_JNI_H

#include <jni.h>
#include <stdint.h>
#include "paimon_governance.h"

#ifdef __cplusplus
#define PG_JNI_(env) ((env)->functions)
#else
#define PG_JNI_(env) (*(env))
#endif

/* Describes and clears a pending Java exception; returns 1 when there was one. */
static inline int pg_jni_failed_(JNIEnv *env) {
    if (!PG_JNI_(env)->ExceptionCheck(env)) {
        return 0;
    }
    PG_JNI_(env)->ExceptionDescribe(env);
    PG_JNI_(env)->ExceptionClear(env);
    return 1;
}

/**
 * Hands `host` to the provider under `name` (unique among attached hosts). The provider checks the
 * struct (abi_version, struct_size, the required callbacks) and refuses a bad one. Returns 0, or -1
 * with the reason printed to stderr (a Java exception, described and cleared): a bad struct, a name
 * in use, or paimon-governance's allocator-native jar missing from the class path.
 */
static inline int pg_attach(JNIEnv *env, const char *name, const pg_host *host) {
    jclass hosts = PG_JNI_(env)->FindClass(env, "io/paimongov/nativehost/NativeHosts");
    if (hosts == NULL || pg_jni_failed_(env)) {
        pg_jni_failed_(env);
        return -1;
    }
    jmethodID attach = PG_JNI_(env)->GetStaticMethodID(env, hosts, "attach",
                                                       "(Ljava/lang/String;J)Lio/paimongov/nativehost/NativeHost;");
    jstring jname = attach == NULL ? NULL : PG_JNI_(env)->NewStringUTF(env, name);
    if (jname == NULL || pg_jni_failed_(env)) {
        pg_jni_failed_(env);
        return -1;
    }
    jobject attached = PG_JNI_(env)->CallStaticObjectMethod(env, hosts, attach, jname, (jlong)(intptr_t)host);
    PG_JNI_(env)->DeleteLocalRef(env, jname);
    if (attached != NULL) {
        PG_JNI_(env)->DeleteLocalRef(env, attached);
    }
    return pg_jni_failed_(env) ? -1 : 0;
}

/**
 * Detaches the host attached under `name`: cancels the writes still open on it, waits for them to
 * close (at most the host's callback_timeout_ms) and stops calling it. Returns the bytes its writes
 * still held at the end by the provider's count (0 when everything reserved came back), or -1 with
 * the reason printed to stderr (no such host, or a callback still running in the host after the
 * wait: then the host must keep ctx alive). After a return other than -1 no callback of the host is
 * called again.
 */
static inline int64_t pg_detach(JNIEnv *env, const char *name) {
    jclass hosts = PG_JNI_(env)->FindClass(env, "io/paimongov/nativehost/NativeHosts");
    if (hosts == NULL || pg_jni_failed_(env)) {
        pg_jni_failed_(env);
        return -1;
    }
    jmethodID detach = PG_JNI_(env)->GetStaticMethodID(env, hosts, "detach", "(Ljava/lang/String;)J");
    jstring jname = detach == NULL ? NULL : PG_JNI_(env)->NewStringUTF(env, name);
    if (jname == NULL || pg_jni_failed_(env)) {
        pg_jni_failed_(env);
        return -1;
    }
    jlong held = PG_JNI_(env)->CallStaticLongMethod(env, hosts, detach, jname);
    PG_JNI_(env)->DeleteLocalRef(env, jname);
    return pg_jni_failed_(env) ? -1 : (int64_t)held;
}

#endif /* PAIMON_GOVERNANCE_JNI_H */
