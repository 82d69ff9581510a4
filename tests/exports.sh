#!/bin/bash
# What libsmartcp.so exports is its ABI: exactly the names listed in
# lib/libsmartcp.sym, each declared in <smartcp/smartcp.h> and documented
# in libsmartcp(3); and the smartcp program needs nothing from the
# library that the library does not export.  Part of "make check", so
# an accidental export (or a function that lost its export) fails the
# build.  Exit 0 when all holds, 1 with the differences otherwise, 77
# (skip) when nm is missing.
set -u
export LC_ALL=C
top_build=${abs_top_builddir:-$PWD}
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
so=$top_build/lib/.libs/libsmartcp.so
sym=$top_src/lib/libsmartcp.sym
header=$top_src/include/smartcp/smartcp.h
man=$top_src/man/libsmartcp.3
prog=$top_build/src/smartcp
fail=0

command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$so" ] || { echo "FAIL: $so not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-exports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The names of the version script's global: section.
sed -n '/^global:/,/^local:/p' "$sym" |
	sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' |
	sort >"$tmp/listed"
# What the library defines in its dynamic symbol table (the version
# node itself is an absolute symbol, not a function).
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' |
	sed 's/@.*//' | sort >"$tmp/exported"

if ! cmp -s "$tmp/listed" "$tmp/exported"; then
	echo "FAIL: libsmartcp.so exports other names than lib/libsmartcp.sym"
	diff "$tmp/listed" "$tmp/exported" | sed -n 's/^> /  exported, not listed: /p; s/^< /  listed, not exported: /p'
	fail=1
fi
n=$(wc -l <"$tmp/exported")
[ "$n" -gt 0 ] || { echo "FAIL: nothing exported"; fail=1; }

while read -r name; do
	case $name in
	sc_*) ;;
	*) echo "FAIL: $name is exported without the sc_ prefix"; fail=1 ;;
	esac
	grep -Eq "[ *]$name\(" "$header" ||
		{ echo "FAIL: $name is not declared in <smartcp/smartcp.h>"; fail=1; }
	if [ -f "$man" ]; then
		grep -Eq "^\.BI? \"?[^\"]*\b$name\b|^\.B $name\b|\\\\fB$name\\\\fR" "$man" ||
			{ echo "FAIL: $name is not documented in man/libsmartcp.3"; fail=1; }
	fi
done <"$tmp/exported"

# The program is the library's first user: everything it takes from the
# library must be exported (a name made local would not even link, but
# the check says which).
if [ -x "$prog" ]; then
	nm -D --undefined-only "$prog" | awk '{ print $2 }' | sed 's/@.*//' |
		grep '^sc_' | sort >"$tmp/used"
	missing=$(comm -23 "$tmp/used" "$tmp/exported")
	if [ -n "$missing" ]; then
		echo "FAIL: src/smartcp uses names the library does not export:"
		printf '  %s\n' $missing
		fail=1
	fi
	echo "src/smartcp takes $(wc -l <"$tmp/used") functions from libsmartcp"
fi
[ $fail -eq 0 ] && echo "PASS: libsmartcp.so exports exactly the $n names of lib/libsmartcp.sym"
exit $fail
