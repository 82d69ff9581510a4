#!/bin/bash
# The program's files call each other in one direction only: no two files
# of src/ call each other, directly or round a longer circle (walk.c calls
# file.c, so file.c must not call walk.c, nor anything that calls walk.c).
# A circle is code that cannot be read, tested or changed alone.
#
# Read from the objects, not the sources: file A calls file B when A's
# object needs a symbol B's defines (nm: U in A, T/D/B/R in B).  A call
# through a function pointer is not a call here: that is how a lower file
# hands back to a higher one (the traversal to the copy of an entry).
# Part of "make check"; needs the built src/libsmartcp-cli.a.
#
#	bash tests/src-calls.sh [--print]
#
# --print writes every file's callees.  Exit 0 without a circle, 1 with
# the files of each circle.
set -u
export LC_ALL=C
top_build=${abs_top_builddir:-$(cd "$(dirname "$0")/.." && pwd)/_build}
ar=$top_build/src/libsmartcp-cli.a
[ -f "$ar" ] || { echo "FAIL: no $ar (build first)"; exit 99; }
command -v nm >/dev/null || { echo "SKIP: no nm (binutils)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-src-calls.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# "FILE SYMBOL-KIND SYMBOL" for every symbol of every member of the archive
nm -A "$ar" | awk '{
	n = split($1, a, ":"); f = a[n - 1]
	sub(/^.*_a-/, "", f); sub(/\.o$/, ".c", f)
	if (NF == 3) print f, $2, $3; else if (NF == 2) print f, $1, $2
}' >"$tmp/syms"
awk '$2 ~ /^[TDBRC]$/ { print $3, $1 }' "$tmp/syms" | sort -u >"$tmp/defs"
awk '$2 == "U" { print $3, $1 }' "$tmp/syms" | sort -u >"$tmp/uses"
# "CALLER CALLEE" once per pair of files
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' |
	sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] || { echo "FAIL: no calls between files read from $ar"; exit 99; }

if [ "${1:-}" = --print ]; then
	awk '{ c[$1] = c[$1] " " $2 } END { for (f in c) print f ":" c[f] }' \
		"$tmp/edges" | sort
	exit 0
fi

# tsort names the files of a circle on stderr when there is one
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loops"; then
	echo "FAIL: files of src/ that call each other (a circle):"
	sed -n 's/^tsort: \([^:]*\.c\)$/  \1/p' "$tmp/loops" | sort -u
	echo "(bash tests/src-calls.sh --print lists who calls whom)"
	exit 1
fi
echo "$(cut -d' ' -f1 "$tmp/edges" | sort -u | wc -l) files of src/ call others," \
	"$(wc -l <"$tmp/edges") pairs, no circle"
