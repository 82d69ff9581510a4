#!/bin/bash
# The program's files call each other in one direction only, and so do the
# library's: no two files of src/ (or of lib/) call each other, directly
# or round a longer circle (walk.c calls file.c, so file.c must not call
# walk.c, nor anything that calls walk.c).  A circle is code that cannot
# be read, tested or changed alone.
#
# Read from the objects, not the sources: file A calls file B when A's
# object needs a symbol B's defines (nm: U in A, T/D/B/R in B).  A call
# through a function pointer is not a call here: that is how a lower file
# hands back to a higher one (the traversal to the copy of an entry).
# Part of "make check"; needs the built src/libsmartcp-cli.a and
# lib/.libs/libsmartcp-engine.a.
#
#	bash tests/src-calls.sh [--print]
#
# --print writes every file's callees.  Exit 0 without a circle, 1 with
# the files of each circle.
set -u
export LC_ALL=C
top_build=${abs_top_builddir:-$(cd "$(dirname "$0")/.." && pwd)/_build}
command -v nm >/dev/null || { echo "SKIP: no nm (binutils)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-src-calls.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# calls DIR ARCHIVE: the circles among the files of DIR, read from the
# objects of ARCHIVE.  0 without one, 1 with one, 99 when it cannot tell.
calls() {
	local dir=$1 ar=$2 t=$tmp/$1
	[ -f "$ar" ] || { echo "FAIL: no $ar (build first)"; return 99; }
	mkdir -p "$t"
	# "FILE SYMBOL-KIND SYMBOL" for every symbol of every member of the
	# archive (members are named PREFIX_a-FILE.o or PREFIX_la-FILE.o)
	nm -A "$ar" | awk '{
		n = split($1, a, ":"); f = a[n - 1]
		sub(/^.*_l?a-/, "", f); sub(/\.o$/, ".c", f)
		if (NF == 3) print f, $2, $3; else if (NF == 2) print f, $1, $2
	}' >"$t/syms"
	awk '$2 ~ /^[TDBRC]$/ { print $3, $1 }' "$t/syms" | sort -u >"$t/defs"
	awk '$2 == "U" { print $3, $1 }' "$t/syms" | sort -u >"$t/uses"
	# "CALLER CALLEE" once per pair of files
	join "$t/uses" "$t/defs" | awk '$2 != $3 { print $2, $3 }' |
		sort -u >"$t/edges"
	[ -s "$t/edges" ] ||
		{ echo "FAIL: no calls between files read from $ar"; return 99; }

	if [ "$print" = 1 ]; then
		awk -v d="$dir" '{ c[$1] = c[$1] " " $2 }
			END { for (f in c) print d "/" f ":" c[f] }' \
			"$t/edges" | sort
		return 0
	fi
	# tsort names the files of a circle on stderr when there is one
	if ! tsort "$t/edges" >/dev/null 2>"$t/loops"; then
		echo "FAIL: files of $dir/ that call each other (a circle):"
		sed -n 's/^tsort: \([^:]*\.c\)$/  \1/p' "$t/loops" | sort -u
		echo "(bash tests/src-calls.sh --print lists who calls whom)"
		return 1
	fi
	echo "$(cut -d' ' -f1 "$t/edges" | sort -u | wc -l) files of $dir/ call others," \
		"$(wc -l <"$t/edges") pairs, no circle"
}

print=0
[ "${1:-}" = --print ] && print=1
rc=0
for pair in "src $top_build/src/libsmartcp-cli.a" \
	    "lib $top_build/lib/.libs/libsmartcp-engine.a"; do
	# shellcheck disable=SC2086
	calls $pair
	r=$?
	[ $r -gt $rc ] && rc=$r
done
exit $rc
