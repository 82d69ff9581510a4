#!/bin/bash
# One error convention in src/, as in lib/: a function that can fail
# returns -errno, else 0, a count or a descriptor, or one of its named
# outcomes (an enum); and one place that words what went wrong: the
# report's files (report*.c, messages.c), from the tables there
# (enum sc_fail, enum sc_usage).  This reads the sources and fails on:
#
#   - "return -1;", "return errno;" or a positive number returned from a
#     function that returns int (a "said" flag, a sentinel, a positive
#     errno, or an outcome without a name);
#   - a message written, or worded, outside the report's files: printf,
#     fputs and the like on stdout or stderr, or a translatable string
#     (_() or N_()) in any other file.
#
# Allowed elsewhere: help.c (the --help and --version text, which is
# output, not a message); rules.c's N_() names of the --rules cases,
# which report_rules.c prints; quote.c's quote marks from the catalog;
# the signal handler's write(2) (signals.c), whose words messages.c
# translates.  main() returns EXIT_SUCCESS or EXIT_FAILURE.
#
#	bash tests/src-errors.sh [SRCDIR]
#
# Part of "make check".  Exit 0 when src/ keeps the convention, 1 with
# each place that does not.
set -u
export LC_ALL=C
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
src=${1:-$top/src}
[ -d "$src" ] || { echo "FAIL: no $src"; exit 99; }

report='report.c report_json.c report_rules.c report_usage.c messages.c'
bad=0

# int functions: from "int name(" (static, inline, _noinline_ before it)
# at the start of a line to the "}" that closes it
for f in "$src"/*.c; do
	awk -v file="${f##*/}" '
	/^(static |_noinline_ |inline |static inline )*int [a-z_0-9]+\(/ {
		infn = 1; name = $0; sub(/\(.*/, "", name); sub(/.* /, "", name)
	}
	/^}/ { infn = 0 }
	infn && /return (-1|errno|[1-9][0-9]*);/ {
		printf "%s:%d: %s() returns %s\n", file, NR, name, $0; bad = 1
	}
	END { exit bad }' "$f" || bad=1
done

for f in "$src"/*.c; do
	b=${f##*/}
	case " $report help.c " in *" $b "*) continue ;; esac
	out=$(grep -nE '\b(v?f?printf|fputs|puts|fputc|putchar|fwrite|perror|error)[[:space:]]*\([^)]*\b(stdout|stderr)\b|\b(v?printf|puts|putchar|perror)[[:space:]]*\(' "$f" |
		grep -v '^[0-9]*:[[:space:]]*/\?\*')
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | sed "s|^|$b:|; s|\$|  <- printed outside the report|"
		bad=1
	fi
	case $b in
	rules.c | quote.c) continue ;;
	esac
	out=$(grep -nE '\bN?_\("' "$f")
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | sed "s|^|$b:|; s|\$|  <- worded outside the report|"
		bad=1
	fi
done

if [ "$bad" -ne 0 ]; then
	echo "FAIL: src/ does not keep its error convention (see above)"
	exit 1
fi
echo "PASS: src/ returns 0/-errno or named outcomes, and words its messages in the report alone"
exit 0
