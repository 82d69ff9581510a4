#!/bin/bash
# The plan's reasons are words a user reads in --explain, -v and --json
# (libsmartcp gives them in English; smartcp translates them with
# dgettext): every reason lib/plan.c marks with N_() has a German
# translation in po/de.po that is there, not empty and not fuzzy (a fuzzy
# one is not used: the user reads English).  Part of "make check".
# Exit 0 when all are, 1 naming the missing ones, 77 (skip) without
# gettext's msgattrib.
set -u
export LC_ALL=C
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
plan=$top_src/lib/plan.c
po=$top_src/po/de.po
command -v msgattrib >/dev/null ||
	{ echo "SKIP: no msgattrib (gettext)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-po-reasons.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the msgids of a catalog, one a line, continued lines joined
msgids() {
	awk 'function text(s) { sub(/^[a-z]* *"/, "", s); sub(/"$/, "", s)
				return s }
	     /^msgid "/ { id = text($0); inid = 1; next }
	     /^"/ && inid { id = id text($0); next }
	     /^msgstr/ { if (inid && id != "") print id; inid = 0 }' "$1" |
		sort -u
}

# the reasons: N_("...") of plan.c (each on one line there)
grep -o 'N_("[^"]*")' "$plan" | sed 's/^N_("//; s/")$//' | sort -u \
	>"$tmp/reasons"
[ -s "$tmp/reasons" ] || { echo "FAIL: no N_() reasons in $plan"; exit 1; }
msgattrib --translated --no-fuzzy --no-obsolete "$po" -o "$tmp/done.po" ||
	exit 1
msgids "$tmp/done.po" >"$tmp/done"
missing=$(comm -23 "$tmp/reasons" "$tmp/done")
if [ -n "$missing" ]; then
	echo "FAIL: plan reasons without a German translation in po/de.po"
	echo "(missing, empty or fuzzy):"
	printf '%s\n' "$missing" | sed 's/^/  /'
	exit 1
fi
echo "PASS: the $(wc -l <"$tmp/reasons") plan reasons of lib/plan.c are translated in po/de.po"
