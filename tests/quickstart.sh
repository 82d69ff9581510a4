#!/bin/bash
# Quick start, step 1: install build dependencies, build smartcp, and copy
# a generated file (/proc/cpuinfo) and a file on the local disk with -v,
# after showing the plan with --explain.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/deps.sh"
smartcp_install_deps

cd "$top"
autoreconf -fi >/dev/null 2>&1
mkdir -p _build && cd _build
[ -f Makefile ] || ../configure -q
make -s -j"$(nproc)" >/dev/null

demo=$(mktemp -d /tmp/smartcp-demo.XXXXXX)
head -c 8M /dev/urandom > "$demo/local-file"
mkdir -p "$demo/out"
echo "== smartcp --explain (copies nothing)"
./src/smartcp --explain /proc/cpuinfo "$demo/local-file" "$demo/out/"

echo "== smartcp -v"
./src/smartcp -v /proc/cpuinfo "$demo/local-file" "$demo/out/"
cmp "$demo/local-file" "$demo/out/local-file"
echo "== copies are exact: $(wc -c < "$demo/out/cpuinfo") bytes of /proc/cpuinfo, $(wc -c < "$demo/out/local-file") bytes of local-file"
rm -rf "$demo"
echo "smartcp is built: $top/_build/src/smartcp"
