#!/usr/bin/env bash
# Compiles the provider's FFM implementation (src/main/java22) with a JDK 22 or later into the
# module's classes, beside the Java 17 ones: HostAbi makes it only on such a JDK (docs/native.md).
# Called by the pom (maven-antrun-plugin):
#
#   ffm.sh CLASSES_DIR CLASS_PATH RUNNING_JAVA_HOME SOURCE...
#
# The JDK is the first of: $FFM_JDK, the JDK running the build, $JAVA_HOME, /usr/lib/jvm/* (and
# /Library/Java/JavaVirtualMachines/*/Contents/Home) whose javac is 22 or later. The one used is
# written to CLASSES_DIR/../ffm-jdk.txt for the tests. Without one it compiles nothing and says so:
# the provider then uses JNI on every Java version.
set -euo pipefail
classes="$1"; cp="$2"; running="$3"; shift 3
record="$(dirname "$classes")/ffm-jdk.txt"
rm -f "$record"

feature() {  # the feature release of a JDK's javac, or 0
  local v
  v="$("$1/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9][0-9]*\).*/\1/p' | head -n 1)"
  echo "${v:-0}"
}

jdk=""
for candidate in "${FFM_JDK:-}" "$running" "${JAVA_HOME:-}" /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
  if [[ -n "$candidate" && -x "$candidate/bin/javac" && "$(feature "$candidate")" -ge 22 ]]; then
    jdk="$candidate"
    break
  fi
done
if [[ -z "$jdk" ]]; then
  echo "[WARNING] allocator-native: no JDK 22 or later found (FFM_JDK, JAVA_HOME, /usr/lib/jvm): the FFM implementation is not built; the provider uses JNI on every Java version (docs/native.md)" >&2
  exit 0
fi
"$jdk/bin/javac" --release 22 -nowarn -encoding UTF-8 -cp "$classes:$cp" -d "$classes" "$@"
echo "$jdk" > "$record"
echo "allocator-native: compiled the FFM implementation with $jdk" >&2
