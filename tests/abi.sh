#!/bin/bash
# libsmartcp's ABI against the baseline kept in the repository.
#
# lib/abi/<SONAME>.abi is what abidw wrote for the released library of
# that SONAME: its exported functions and, from the debug information,
# the types of <smartcp/smartcp.h> they use.  abidiff compares the
# library just built with it:
#   - an incompatible change (a function gone, a structure or an enum
#     value changed) fails, unless the SONAME moved and a baseline for
#     the new SONAME is in lib/abi/;
#   - a compatible one (a function added) passes and is listed, so that
#     the baseline can be brought up to date with the release;
#   - a SONAME without a baseline fails.
# To write the baseline for the library built in BUILD (after a release,
# or with a new SONAME):
#   abidw --no-corpus-path --no-show-locs --drop-private-types \
#     --headers-dir include/smartcp BUILD/lib/.libs/libsmartcp.so \
#     >lib/abi/$(objdump -p BUILD/lib/.libs/libsmartcp.so |
#                awk '$1 == "SONAME" { print $2 }').abi
# Exit 0 when compatible, 1 otherwise, 77 (skip) without abidiff or
# without debug information (CFLAGS without -g: only types tell).
set -u
export LC_ALL=C
top_build=${abs_top_builddir:-$PWD}
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
so=$top_build/lib/.libs/libsmartcp.so

command -v abidiff >/dev/null ||
	{ echo "SKIP: no abidiff (Debian: apt-get install abigail-tools)"; exit 77; }
[ -f "$so" ] || { echo "FAIL: $so not built"; exit 1; }
so=$(readlink -f "$so")
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ -n "$soname" ] || { echo "FAIL: $so has no SONAME"; exit 1; }
if ! readelf -S "$so" | grep -q '\.debug_info'; then
	echo "SKIP: $so has no debug information (built without -g)"
	exit 77
fi

base=$top_src/lib/abi/$soname.abi
if [ ! -f "$base" ]; then
	echo "FAIL: no ABI baseline for $soname (lib/abi/$soname.abi)"
	echo "  a new SONAME needs its baseline: see the command in tests/abi.sh"
	exit 1
fi

out=$(abidiff --no-show-locs "$base" "$so" 2>&1)
rc=$?
# abidiff's status is a bit field: 1 error, 2 usage, 4 a change,
# 8 an incompatible change.
if [ $((rc & 3)) -ne 0 ]; then
	echo "FAIL: abidiff could not compare (status $rc)"
	printf '%s\n' "$out"
	exit 1
fi
# abidiff marks only removed symbols as incompatible (8); a changed
# type behind a function (a member added, moved or retyped) is a
# "change" (4) too, and breaks every caller built with the old header.
# Only additions are compatible.
changed=$(printf '%s\n' "$out" |
	sed -n 's/^\(Functions\|Variables\) changes summary: \([0-9]*\) Removed, \([0-9]*\) Changed.*/\2 \3/p' |
	awk '$1 + $2 > 0' | wc -l)
if [ $((rc & 8)) -ne 0 ] || [ "$changed" -ne 0 ]; then
	echo "FAIL: $soname changed incompatibly against lib/abi/$soname.abi"
	echo "  keep the ABI, or move the SONAME (lib/Makemodule.am's"
	echo "  -version-info) and write the new SONAME's baseline"
	printf '%s\n' "$out"
	exit 1
fi
if [ $((rc & 4)) -ne 0 ]; then
	echo "$soname: compatible changes against lib/abi/$soname.abi"
	echo "(bring the baseline up to date with the release):"
	printf '%s\n' "$out"
fi
echo "PASS: $soname keeps the ABI of lib/abi/$soname.abi"
exit 0
