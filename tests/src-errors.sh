#!/bin/bash
# One error convention in src/ and lib/: a function that can fail returns
# -errno, else 0, a count or a descriptor, or one of its named outcomes
# (an enum); and the words of what went wrong come from one place.  This
# reads the sources and fails on:
#
#   - (src/ and lib/) "return -1;", "return errno;" or a positive number
#     returned from a function that returns int (a "said" flag, a
#     sentinel, a positive errno, or an outcome without a name);
#   - (src/) a message written, or worded, outside the report's files
#     (report*.c, messages.c, from the tables there: enum sc_fail, enum
#     sc_usage): printf, fputs and the like on stdout or stderr, or a
#     translatable string (_() or N_()) in any other file;
#   - (lib/) any printing at all: the library never prints, exits or
#     translates.  No stdout or stderr, no printf, puts, perror, error,
#     err, warn, syslog or dprintf, no exit or abort, and no _(), gettext
#     or dgettext.  Writing into a buffer is not printing: snprintf, and
#     fprintf or putc on a stream of open_memstream (mountinfo.c's lines).
#     N_() is allowed: it only marks the reasons (sc_plan_why, the stacks'
#     table), English strings the library returns untranslated and the
#     program translates.
#
# Allowed in src/ elsewhere: help.c (the --help and --version text, which
# is output, not a message); rules.c's N_() names of the --rules cases,
# which report_rules.c prints; quote.c's quote marks from the catalog;
# the signal handler's write(2) (signals.c), whose words messages.c
# translates.  main() returns EXIT_SUCCESS or EXIT_FAILURE.  Allowed in
# lib/: meta_xattr.c's attr_(), libattr's own messages in libattr's own
# text domain, the words attr_copy_fd() hands the same report.
#
#	bash tests/src-errors.sh [DIR...]
#
# DIR is src/ or lib/ (the rules by its name); both by default.  Part of
# "make check".  Exit 0 when they keep the convention, 1 with each place
# that does not.
set -u
export LC_ALL=C
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
[ $# -gt 0 ] || set -- "$top/src" "$top/lib"

report='report.c report_json.c report_rules.c report_usage.c messages.c'
bad=0

# sources DIR PATTERN: the files of DIR and its folders (src/ is in
# folders by layer) whose names match PATTERN
sources() {
	find "$1" -name "$2" -type f | sort
}

# name FILE: FILE as the tree names it (src/policy/dest.c)
name() {
	printf '%s\n' "${1#"$top"/}"
}

# returns DIR: the int functions of DIR's *.c, from "int name(" (static,
# inline, _noinline_ before it) at the start of a line to the "}" that
# closes it
returns() {
	local f
	for f in $(sources "$1" '*.c'); do
		awk -v file="$(name "$f")" '
		/^(static |_noinline_ |inline |static inline )*int [a-z_0-9]+\(/ {
			infn = 1; name = $0; sub(/\(.*/, "", name); sub(/.* /, "", name)
		}
		/^}/ { infn = 0 }
		infn && /return (-1|errno|[1-9][0-9]*);/ {
			printf "%s:%d: %s() returns %s\n", file, NR, name, $0; bad = 1
		}
		END { exit bad }' "$f" || bad=1
	done
}

# flag FILE WHY REGEX [ALLOWED]: the lines of FILE matching REGEX
# (comments aside, and lines matching ALLOWED), each with WHY
flag() {
	local f=$1 why=$2 re=$3 allowed=${4:-^$} out
	out=$(grep -nE "$re" "$f" | grep -v '^[0-9]*:[[:space:]]*/\?\*' |
		grep -vE "$allowed")
	if [ -n "$out" ]; then
		printf '%s\n' "$out" |
			sed "s|^|$(name "$f"):|; s|\$|  <- $why|"
		bad=1
	fi
}

# src/: messages from the report's files alone
src_words() {
	local f b
	for f in $(sources "$1" '*.c'); do
		b=${f##*/}
		case " $report help.c " in *" $b "*) continue ;; esac
		flag "$f" "printed outside the report" \
			'\b(v?f?printf|fputs|puts|fputc|putchar|fwrite|perror|error)[[:space:]]*\([^)]*\b(stdout|stderr)\b|\b(v?printf|puts|putchar|perror)[[:space:]]*\('
		case $b in
		rules.c | quote.c) continue ;;
		esac
		flag "$f" "worded outside the report" '\bN?_\("'
	done
}

# lib/: no printing, exiting or translating at all
lib_words() {
	local f allowed
	for f in $(sources "$1" '*.[ch]'); do
		# (a caller's callback named "error" is no printing)
		flag "$f" "the library prints" \
			'\b(stdout|stderr|STDOUT_FILENO|STDERR_FILENO)\b|\b(v?printf|puts|putchar|perror|error|errx?|warnx?|v?syslog|v?dprintf)[[:space:]]*\(' \
			'(\.|->)error[[:space:]]*\('
		flag "$f" "the library exits" '\b(exit|_exit|_Exit|abort)[[:space:]]*\('
		case ${f##*/} in
		meta_xattr.c) allowed='^[0-9]+:# define attr_\(s\) dgettext\("attr", s\)$' ;;
		*) allowed='^$' ;;
		esac
		flag "$f" "the library translates" \
			'\b(_|d?c?n?gettext)[[:space:]]*\(' "$allowed"
	done
}

for d in "$@"; do
	[ -d "$d" ] || { echo "FAIL: no $d"; exit 99; }
	returns "$d"
	case ${d%/} in
	*lib) lib_words "$d" ;;
	*) src_words "$d" ;;
	esac
done

if [ "$bad" -ne 0 ]; then
	echo "FAIL: the error convention is not kept (see above)"
	exit 1
fi
echo "PASS: src/ and lib/ return 0/-errno or named outcomes; src/ words its messages in the report alone, lib/ prints nothing"
exit 0
