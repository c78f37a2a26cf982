#!/usr/bin/env bash
# Builds a shared library of this module's C sources with the system C compiler and the JDK's JNI
# headers, for the platform the build runs on. Called by the module's pom (maven-antrun-plugin):
#
#   cc.sh OUT_DIR LIBRARY_NAME JAVA_HOME SOURCE...
#
# writes OUT_DIR/<os>-<arch>/lib<LIBRARY_NAME>.so (.dylib on macOS). Without a C compiler (CC, else
# cc on PATH) it builds nothing and says so: the provider then refuses to open, naming what is
# missing, and the tests that need the library are skipped with that reason (docs/native.md).
set -euo pipefail
out="$1"; name="$2"; jdk="$3"; shift 3
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
mkdir -p "$out/$os-$arch"
"$cc" -std=c11 -O2 -fPIC -Wall -Wextra -Werror -Wno-unused-parameter "${flags[@]}" \
  -I"$here/main/c/include" -I"$jdk/include" -I"$jdk/include/$jni_os" \
  -o "$out/$os-$arch/lib$name.$ext" "$@"
echo "allocator-native: built $out/$os-$arch/lib$name.$ext" >&2
