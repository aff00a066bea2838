#!/usr/bin/env bash
# Regenerates the committed Java (and the Python for script jobs) from thrift/edl.thrift with Debian's thrift-compiler (0.17),
# whose output compiles against libthrift 0.17..0.20 (pinned in the parent pom).
#   apt-get install thrift-compiler
# Also records the IDL's SHA-256 next to the code; IdlRegenerationTest compares the two.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v thrift >/dev/null || { echo "thrift-compiler is not installed (apt-get install thrift-compiler)" >&2; exit 1; }
out="$here/src/main/java"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
thrift --gen java:generated_annotations=suppress -out "$tmp" "$here/edl.thrift"
rm -rf "$out/org/edl/thrift"
mkdir -p "$out"
cp -r "$tmp/org" "$out/"
mkdir -p "$here/src/main/resources/org/edl/thrift"
# The Python of the same IDL, for script jobs' edl package (container-worker carries it).
py="$here/../container-worker/src/main/resources/org/edl/worker/script/python"
thrift --gen py -out "$tmp" "$here/edl.thrift"
rm -rf "$py/edl_gen"
mkdir -p "$py"
rm -f "$tmp"/edl_gen/*-remote  # command-line samples, not needed by a script
cp -r "$tmp/edl_gen" "$py/"
sha256sum "$here/edl.thrift" | cut -d' ' -f1 > "$here/src/main/resources/org/edl/thrift/edl.thrift.sha256"
echo "regenerated $(find "$out/org/edl/thrift" -name '*.java' | wc -l) files from edl.thrift"
