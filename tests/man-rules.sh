#!/bin/bash
# smartcp(1)'s table of rules is what the smartcp of this build prints
# with --rules: the page is made from that output at build time
# (man/Makemodule.am), and this test fails when the two disagree -- a
# page built by an older smartcp, a page edited by hand, or an escape
# that prints differently from what the program said.  Part of "make
# check".  Exit 0 when they agree, 1 otherwise.
set -u
export LC_ALL=C
unset LANGUAGE
top_build=${abs_top_builddir:-$PWD}
page=$top_build/man/smartcp.1
prog=$top_build/src/smartcp

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-man-rules.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -f "$page" ] || { echo "FAIL: $page was not built"; exit 1; }

"$prog" --rules >"$tmp/rules" || { echo "FAIL: smartcp --rules exited $?"; exit 1; }
[ -s "$tmp/rules" ] || { echo "FAIL: smartcp --rules printed nothing"; exit 1; }

# The roff between the markers, back into plain text (the inverse of
# man/roff-escape.sed).
sed -n '/^\.\\" rules: begin/,/^\.\\" rules: end/p' "$page" |
	sed -e '1d;$d' | sed -e '/^\.EX$/d' -e '/^\.EE$/d' \
	-e 's/^\.sp$//' -e 's/^\\&//' -e 's/\\-/-/g' -e 's/\\e/\\/g' \
	>"$tmp/page"
if ! cmp -s "$tmp/rules" "$tmp/page"; then
	echo "FAIL: the table in man/smartcp.1 differs from smartcp --rules:"
	diff -u "$tmp/rules" "$tmp/page" | head -40
	exit 1
fi
echo "ok: man/smartcp.1 holds smartcp --rules ($(wc -l <"$tmp/rules") lines)"

# And the page shows it: every row of the table is in the rendered text.
if command -v groff >/dev/null; then
	groff -man -Tascii -P-cbou "$page" 2>"$tmp/warn" |
		sed 's/^ *//' >"$tmp/shown"
	missing=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		grep -qxF -- "$(printf '%s' "$line" | sed 's/^ *//')" "$tmp/shown" ||
			{ echo "FAIL: not shown by the page: $line"; missing=1; }
	done <"$tmp/rules"
	[ "$missing" = 0 ] || exit 1
	echo "ok: the rendered page shows every line of the table"
else
	echo "SKIP: groff is not installed: the rendered page was not checked"
fi
exit 0
