#!/bin/bash
# make check runs the integration tests listed in INTEGRATION_TESTS of
# tests/Makemodule.am (automake has no wildcards): this test fails when
# that list and the tests/integration/t-*.sh there are differ, so that a
# new test cannot be left out of make check unnoticed (and a removed one
# does not break it).  It also fails when a helper script there (any other
# file) is missing from INTEGRATION_SUPPORT, the list the tarball carries
# (tests/integration is not in EXTRA_DIST as a directory: see
# tests/Makemodule.am).  Part of "make check".  Exit 0 when they agree, 1
# with the differences otherwise.
#
#	bash tests/integration-list.sh [--print]
#
# --print writes the list as tests/Makemodule.am wants it, for pasting.
set -u
export LC_ALL=C
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
am=$top_src/tests/Makemodule.am

on_disk() {
	(cd "$top_src" && for t in tests/integration/t-*.sh; do
		[ -e "$t" ] && echo "$t"
	done) | sort
}

if [ "${1:-}" = --print ]; then
	echo 'INTEGRATION_TESTS = \'
	on_disk | sed 's/^/\t/; $!s/$/ \\/'
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-integration-list.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
on_disk >"$tmp/disk"
sed -n '/^INTEGRATION_TESTS =/,/[^\\]$/p' "$am" |
	grep -o 'tests/integration/[^ \\]*' | sort >"$tmp/listed"
[ -s "$tmp/listed" ] || { echo "FAIL: no INTEGRATION_TESTS in $am"; exit 1; }
sort -u "$tmp/listed" | cmp -s - "$tmp/listed" || {
	echo "FAIL: INTEGRATION_TESTS in $am names a test twice:"
	uniq -d "$tmp/listed" | sed 's/^/  /'
	exit 1
}
if ! cmp -s "$tmp/disk" "$tmp/listed"; then
	comm -23 "$tmp/disk" "$tmp/listed" | sed 's/^/FAIL: not in INTEGRATION_TESTS: /'
	comm -13 "$tmp/disk" "$tmp/listed" | sed 's/^/FAIL: listed but not there: /'
	echo "(fix INTEGRATION_TESTS in tests/Makemodule.am; bash tests/integration-list.sh --print writes it)"
	exit 1
fi
(cd "$top_src" && for f in tests/integration/*; do
	case ${f##*/} in t-*.sh) ;; *) [ -f "$f" ] && echo "$f" ;; esac
done) | sort >"$tmp/support-disk"
sed -n '/^INTEGRATION_SUPPORT =/,/[^\\]$/p' "$am" |
	grep -o 'tests/integration/[^ \\]*' | sort -u >"$tmp/support-listed"
if ! cmp -s "$tmp/support-disk" "$tmp/support-listed"; then
	comm -23 "$tmp/support-disk" "$tmp/support-listed" |
		sed 's/^/FAIL: not in INTEGRATION_SUPPORT (not in the tarball): /'
	comm -13 "$tmp/support-disk" "$tmp/support-listed" |
		sed 's/^/FAIL: in INTEGRATION_SUPPORT but not there: /'
	exit 1
fi
echo "$(wc -l <"$tmp/disk") integration tests, all in INTEGRATION_TESTS;" \
	"$(wc -l <"$tmp/support-disk") helper scripts, all in INTEGRATION_SUPPORT"
