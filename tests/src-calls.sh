#!/bin/bash
# The program's files call each other in one direction only, and so do the
# library's: no two files of src/ (or of lib/) call each other, directly
# or round a longer circle (run.c calls operands.c, so operands.c must
# not call run.c, nor anything that calls run.c).  A circle is code that cannot
# be read, tested or changed alone.
#
# And src/ is in layers, a folder each, which src/layers.txt names from
# the top down: a file calls the files of its own layer and of the layers
# below it.  A call up (output/report.c calling policy/dest.c) fails unless
# src/layers.txt lists it, with what it is to become (there are none since
# the walk moved into the library, issue 38); an entry there that is no
# call up any more fails too, so that the list only shrinks.  Every C file of src/ is in a
# layer's folder, and no two have one name (the archive names its members
# by the file's name alone).
#
# Read from the objects, not the sources: file A calls file B when A's
# object needs a symbol B's defines (nm: U in A, T/D/B/R in B).  A call
# through a function pointer is not a call here: that is how a lower file
# hands back to a higher one (the traversal to the copy of an entry).
# main()'s file (src/cli/smartcp.c) is not in the archive: it is the top,
# and calls only down.  Part of "make check"; needs the built
# src/libsmartcp-cli.a and lib/.libs/libsmartcp-engine.a.
#
#	bash tests/src-calls.sh [--print]
#
# --print writes every file's callees (in src/, with their layers'
# folders, and each call up with its function).  Exit 0 without a circle
# and with the layers kept, 1 with the files of each circle, each call up
# src/layers.txt does not list and each entry it lists that is no call up.
set -u
export LC_ALL=C
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_build=${abs_top_builddir:-$top_src/_build}
layers_txt=$top_src/src/layers.txt
command -v nm >/dev/null || { echo "SKIP: no nm (binutils)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-src-calls.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# calls DIR ARCHIVE [WHERE]: the circles among the files of DIR, read
# from the objects of ARCHIVE (WHERE: "NAME PATH" lines, a file's name as
# the archive has it and its path under DIR, for the files in folders).
# 0 without one, 1 with one, 99 when it cannot tell.
calls() {
	local dir=$1 ar=$2 where=${3:-/dev/null} t=$tmp/$1
	[ -f "$ar" ] || { echo "FAIL: no $ar (build first)"; return 99; }
	mkdir -p "$t"
	# "FILE SYMBOL-KIND SYMBOL" for every symbol of every member of the
	# archive (members are named PREFIX_a-FILE.o or PREFIX_la-FILE.o)
	nm -A "$ar" | awk -v where="$where" '
	BEGIN { while ((getline l < where) > 0) { split(l, w, " "); p[w[1]] = w[2] } }
	{
		n = split($1, a, ":"); f = a[n - 1]
		sub(/^.*_l?a-/, "", f); sub(/\.o$/, ".c", f)
		if (f in p) f = p[f]
		if (NF == 3) print f, $2, $3; else if (NF == 2) print f, $1, $2
	}' >"$t/syms"
	awk '$2 ~ /^[TDBRC]$/ { print $3, $1 }' "$t/syms" | sort -u >"$t/defs"
	awk '$2 == "U" { print $3, $1 }' "$t/syms" | sort -u >"$t/uses"
	# "CALLER CALLEE SYMBOL" for each symbol a file takes from another,
	# and "CALLER CALLEE" once per pair of files
	join "$t/uses" "$t/defs" | awk '$2 != $3 { print $2, $3, $1 }' |
		sort -u >"$t/calls"
	cut -d' ' -f1,2 "$t/calls" | sort -u >"$t/edges"
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

# layers: src/'s calls (calls() has read them) against src/layers.txt.
# 0 when every call up is listed and every entry is one, 1 otherwise, 99
# when it cannot tell.
layers() {
	local t=$tmp/src
	[ -f "$layers_txt" ] || { echo "FAIL: no $layers_txt"; return 99; }
	[ -s "$t/calls" ] || return 99
	awk -v list="$layers_txt" -v where="$t/where" -v print_up="$print" '
	function fail(s) { print "FAIL: " s; bad = 1 }
	function layer(path) { return substr(path, 1, index(path, "/") - 1) }
	# src/layers.txt: "layers TOP ... BOTTOM", then one call up a line,
	# "CALLER FUNCTION CALLEE WHAT-IT-BECOMES"; # starts a comment line
	FILENAME == list {
		if ($0 ~ /^[ \t]*(#|$)/)
			next
		if ($1 == "layers") {
			for (i = 2; i <= NF; i++)
				rank[$i] = i - 1
			named = NF - 1
			next
		}
		if (NF < 4) {
			fail("src/layers.txt:" FNR ": not CALLER FUNCTION CALLEE" \
			     " WHAT-IT-BECOMES: " $0)
			next
		}
		k = $1 " " $2
		if (k in callee)
			fail("src/layers.txt:" FNR ": " k " again (line " at[k] ")")
		callee[k] = $3; at[k] = FNR
		next
	}
	# "NAME PATH": every C file of src/, in a layer, once
	FILENAME == where {
		if (!(layer($2) in rank))
			fail("src/" $2 " is in no layer of src/layers.txt")
		if ($1 in path)
			fail("src/" path[$1] " and src/" $2 " have one name")
		path[$1] = $2
		next
	}
	# "CALLER CALLEE SYMBOL"
	{
		from = layer($1); to = layer($2)
		if (!(from in rank) || !(to in rank) || rank[to] >= rank[from])
			next
		k = $1 " " $3
		pairs[from " -> " to]++
		if (print_up)
			print "src/" $1 ": up to " $2 " (" $3 ")"
		if (!(k in callee))
			fail("src/" $1 " calls up into src/" $2 ": " $3 \
			     " (a callback, or an entry in src/layers.txt:" \
			     " " $1 " " $3 " " $2 " WHAT-IT-BECOMES)")
		else if (callee[k] != $2)
			fail("src/layers.txt:" at[k] ": " $3 " is in src/" $2 \
			     " now, not src/" callee[k])
		used[k] = 1
	}
	END {
		if (!named)
			fail("src/layers.txt names no layers")
		for (k in callee)
			if (!(k in used))
				fail("src/layers.txt:" at[k] ": " k " is no call" \
				     " up any more: remove the entry")
		if (bad) {
			print "(src/layers.txt says the layers and why each" \
			      " call up is there)"
			exit 1
		}
		n = 0; s = ""
		for (p in pairs) {
			n += pairs[p]
			s = s (s == "" ? "" : ", ") p " " pairs[p]
		}
		if (!print_up)
			print "src/ keeps its layers; " n " calls up, each in" \
			      " src/layers.txt (" s ")"
	}' "$layers_txt" "$t/where" "$t/calls"
}

print=0
[ "${1:-}" = --print ] && print=1
# src/'s files by the names the archive has for them
mkdir -p "$tmp/src"
(cd "$top_src/src" && find . -name '*.c' | sed 's|^\./||' |
	awk '{ n = $0; sub(/.*\//, "", n); print n, $0 }' | sort) >"$tmp/src/where"
rc=0
for pair in "src $top_build/src/libsmartcp-cli.a $tmp/src/where" \
	    "lib $top_build/lib/.libs/libsmartcp-engine.a"; do
	# shellcheck disable=SC2086
	calls $pair
	r=$?
	[ $r -gt $rc ] && rc=$r
done
if [ $rc -ne 99 ]; then
	layers
	r=$?
	[ $r -gt $rc ] && rc=$r
fi
exit $rc
