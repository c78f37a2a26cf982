#!/usr/bin/env bash
# Builds C sources against paimon_governance.h with the system C compiler and the JDK's JNI
# headers, for the platform the build runs on. Called by the poms of allocator-native and of
# examples/native-host (maven-antrun-plugin):
#
#   cc.sh lib OUT_DIR NAME JAVA_HOME SOURCE...   writes OUT_DIR/<os>-<arch>/lib<NAME>.so (.dylib on macOS)
#   cc.sh exe OUT_DIR NAME JAVA_HOME SOURCE...   writes OUT_DIR/<NAME>, linked with the JDK's libjvm
#
# Without a C compiler (CC, else cc on PATH) it builds nothing and says so: the provider then
# refuses to open, naming what is missing, and the tests that need the build are skipped with that
# reason (docs/native.md).
set -euo pipefail
kind="$1"; out="$2"; name="$3"; jdk="$4"; shift 4
cc="${CC:-cc}"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "[WARNING] allocator-native: no C compiler ('$cc' is not on PATH): lib$name is not built; the native provider and its tests are skipped (docs/native.md)" >&2
  exit 0
fi
case "$(uname -s)" in
  Linux) os=linux; ext=so; flags=(-shared); jni_os=linux ;;
  Darwin) os=darwin; ext=dylib; flags=(-dynamiclib -undefined dynamic_lookup); jni_os=darwin ;;
  *) echo "[WARNING] allocator-native: $(uname -s) is not a platform this build compiles for: lib$name is not built" >&2; exit 0 ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) arch="$(uname -m)" ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
common=(-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -I"$here/main/c/include" -I"$jdk/include" -I"$jdk/include/$jni_os")
case "$kind" in
  lib)
    target="$out/$os-$arch/lib$name.$ext"
    mkdir -p "$out/$os-$arch"
    "$cc" "${common[@]}" -fPIC "${flags[@]}" -o "$target" "$@" ;;
  exe)
    target="$out/$name"
    mkdir -p "$out"
    "$cc" "${common[@]}" -o "$target" "$@" -L"$jdk/lib/server" -Wl,-rpath,"$jdk/lib/server" -ljvm -lpthread ;;
  *) echo "cc.sh: the first argument is 'lib' or 'exe', not '$kind'" >&2; exit 2 ;;
esac
echo "allocator-native: built $target" >&2
