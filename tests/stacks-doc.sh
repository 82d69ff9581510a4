#!/bin/bash
# The known-bad stacks are told in four places, and all four are the one
# table, lib/stacks.txt: the library has it compiled in (lib/stacks.awk
# makes lib/stacks_table.c), smartcp --rules prints it (and the plan for
# a stack where each row holds), smartcp(1) holds that output, and
# README's section "Stacks smartcp guards against" is what lib/stacks.awk
# makes of it.  This fails when any of them says something else: a row
# missing or changed in --rules --json, a row the page does not show, or
# a README section edited by hand or left behind.  Part of "make check".
# Exit 0 when they agree, 1 otherwise.
set -u
export LC_ALL=C
unset LANGUAGE
top_build=${abs_top_builddir:-$PWD}
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
prog=$top_build/src/smartcp
page=$top_build/man/smartcp.1
awk_prog=$top_src/lib/stacks.awk
data=$top_src/lib/stacks.txt
fail=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-stacks-doc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

awk -v mode=tsv -f "$awk_prog" "$data" >"$tmp/data" ||
	{ echo "FAIL: lib/stacks.awk cannot read lib/stacks.txt"; exit 1; }
"$prog" --rules --json >"$tmp/rules.json" ||
	{ echo "FAIL: smartcp --rules --json exited $?"; exit 1; }
# the stack objects, as the same fields: a condition the row does not
# have is null there and empty here; hole detection is a road here
jq -r 'select(has("stack")) | [.stack, .cite, .fs, .side, .kernel,
	(.module // ""), (.param // ""), (.libc // ""),
	((.roads + (if .holes then ["holes"] else [] end)) | join(" ")),
	.seen, .action, .source, .date, (.example.assume_fs // ""),
	(.example.kernel // "")] | @tsv' "$tmp/rules.json" >"$tmp/rules"
cut -f1-15 "$tmp/data" >"$tmp/data15"
if ! cmp -s "$tmp/data15" "$tmp/rules"; then
	echo "FAIL: smartcp --rules --json and lib/stacks.txt disagree:"
	diff -u "$tmp/data15" "$tmp/rules" | head -40
	fail=1
else
	echo "ok: --rules --json has the $(wc -l <"$tmp/rules") rows of lib/stacks.txt"
fi
# the text table: a heading and the source of each row
"$prog" --rules >"$tmp/rules.txt"
cut -f1,12 "$tmp/data" >"$tmp/sources"
while IFS=$'\t' read -r id url; do
	grep -q "^$id: " "$tmp/rules.txt" &&
		grep -qxF "  source:  $url" "$tmp/rules.txt" ||
		{ echo "FAIL: smartcp --rules does not show row $id ($url)"; fail=1; }
done <"$tmp/sources"
[ $fail -eq 0 ] && echo "ok: smartcp --rules shows every row and its source"

# smartcp(1): its table is --rules (tests/man-rules.sh checks it whole);
# here, every row and its source, in the page's roff taken back to text
if [ -f "$page" ]; then
	sed -e 's/\\-/-/g' -e 's/^\\&//' -e 's/\\e/\\/g' "$page" >"$tmp/page"
	while IFS=$'\t' read -r id url; do
		grep -q "^$id: " "$tmp/page" &&
			grep -qxF "  source:  $url" "$tmp/page" ||
			{ echo "FAIL: smartcp(1) does not show row $id ($url)"; fail=1; }
	done <"$tmp/sources"
	[ $fail -eq 0 ] && echo "ok: smartcp(1) shows every row and its source"
else
	echo "FAIL: $page was not built"
	fail=1
fi

# README's section, as lib/stacks.awk makes it
awk -v mode=readme -f "$awk_prog" "$data" >"$tmp/readme"
n=$(wc -l <"$tmp/readme")
start=$(grep -nx 'Stacks smartcp guards against' "$top_src/README" | cut -d: -f1)
if [ -z "$start" ]; then
	echo "FAIL: README has no section \"Stacks smartcp guards against\""
	echo "  (awk -v mode=readme -f lib/stacks.awk lib/stacks.txt makes it)"
	fail=1
elif ! tail -n +"$start" "$top_src/README" | head -n "$n" |
	cmp -s - "$tmp/readme"; then
	echo "FAIL: README's \"Stacks smartcp guards against\" is not lib/stacks.txt's:"
	tail -n +"$start" "$top_src/README" | head -n "$n" |
		diff -u - "$tmp/readme" | head -40
	echo "  (awk -v mode=readme -f lib/stacks.awk lib/stacks.txt makes it)"
	fail=1
else
	echo "ok: README's section is lib/stacks.txt's ($n lines)"
fi
exit $fail
