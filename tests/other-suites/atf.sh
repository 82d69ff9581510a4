# shellcheck shell=bash
# Enough of ATF's shell interface (atf-sh) to run FreeBSD's and NetBSD's
# tests of cp on Linux, case by case, and record each case as lib.sh does:
#
#	. lib.sh; . atf.sh; . THE-TEST; atf_init_test_cases
#	atf_list			the cases, one a line
#	atf_require_user CASE		root, unprivileged or nothing
#	atf_run CASE			runs one case in the current folder
#
# atf_check follows atf-check(1): -s exit:N|not-exit:N|ignore, -o and -e
# empty|not-empty|ignore|inline:TEXT|file:F|match:RE|not-match:RE|save:F
# (by default exit:0 and empty outputs); a failed check ends the case.
# atf_skip ends it as skipped.  The BSD stat(1) options the tests use are
# mapped onto GNU stat: -f with %z, %d, %i, %u, %g, %m, %p and %Lp, and -h,
# which lists a file's holes (here: prints "0-0" when the file has fewer
# blocks than its size needs, nothing else).  There are no BSD file
# flags: %f is 0 and %Sf "-".

atf_cases=()
atf_user=''

atf_test_case() { :; }
atf_add_test_case() { atf_cases+=("$1"); }
atf_list() { printf '%s\n' "${atf_cases[@]}"; }

atf_set() {
	[ "$1" = require.user ] && atf_user=$2
	return 0
}
atf_get() {
	case $1 in
	ident) echo "$atf_ident" ;;
	esac
}

atf_require_user() {
	atf_user=''
	declare -F "$1_head" >/dev/null && "$1_head"
	echo "$atf_user"
}

atf_fail() {
	echo "atf: failed: $*" >&2
	exit 1
}
atf_skip() {
	echo "atf: skipped: $*" >&2
	exit 77
}
atf_pass() { exit 0; }

atf_check_equal() {
	[ "$1" = "$2" ] || atf_fail "'$1' != '$2'"
}
atf_check_not_equal() {
	[ "$1" != "$2" ] || atf_fail "'$1' == '$2'"
}

# atf_stream WHAT FILE SPEC: one -o or -e check.
atf_stream() {
	local what=$1 f=$2 spec=$3
	case $spec in
	empty) [ ! -s "$f" ] ;;
	not-empty) [ -s "$f" ] ;;
	ignore) true ;;
	inline:*) printf '%b' "${spec#inline:}" | cmp -s - "$f" ;;
	file:*) cmp -s "${spec#file:}" "$f" ;;
	match:*) grep -Eq -- "${spec#match:}" "$f" ;;
	not-match:*) ! grep -Eq -- "${spec#not-match:}" "$f" ;;
	save:*) cat -- "$f" >"${spec#save:}" ;;
	*) atf_fail "unknown $what check $spec" ;;
	esac || {
		echo "atf: $what is not $spec; it was:" >&2
		head -c 2000 "$f" >&2
		atf_fail "$what check $spec"
	}
}

atf_check() {
	local st=exit:0 outs=() errs=() rc=0 o
	while [ $# -gt 0 ]; do
		case $1 in
		-s) st=$2; shift 2 ;;
		-o) outs+=("$2"); shift 2 ;;
		-e) errs+=("$2"); shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ ${#outs[@]} -gt 0 ] || outs=(empty)
	[ ${#errs[@]} -gt 0 ] || errs=(empty)
	"$@" >"$ATF_TMP/out" 2>"$ATF_TMP/err" || rc=$?
	echo "atf: $* -> $rc" >&2
	case $st in
	exit:*) [ "$rc" = "${st#exit:}" ] ;;
	not-exit:*) [ "$rc" != "${st#not-exit:}" ] ;;
	ignore) true ;;
	*) atf_fail "unknown status check $st" ;;
	esac || {
		cat "$ATF_TMP/err" >&2
		atf_fail "$*: status $rc, wanted $st"
	}
	for o in "${outs[@]}"; do atf_stream stdout "$ATF_TMP/out" "$o"; done
	for o in "${errs[@]}"; do atf_stream stderr "$ATF_TMP/err" "$o"; done
}

# bsd_stat_format FMT: FMT of BSD stat(1) -f in GNU stat's words, for the
# formats the tests use; fails on another.
bsd_stat_format() {
	local f=$1 out='' c
	while [ -n "$f" ]; do
		case $f in
		%Lp*) out+=%a; f=${f#%Lp} ;;
		%Sf*) out+=-; f=${f#%Sf} ;;
		%*)
			c=${f:1:1}
			case $c in
			z) out+=%s ;;
			d | i | u | g) out+=%$c ;;
			m) out+=%Y ;;
			p) out+=%f@ ;;	# hexadecimal: made octal below
			f) out+=0 ;;	# no BSD file flags here
			*) return 1 ;;
			esac
			f=${f:2}
			;;
		*) out+=${f:0:1}; f=${f:1} ;;
		esac
	done
	printf '%s' "$out"
}

# BSD's stat(1), as far as the tests use it: -f FORMAT, and -h, which
# lists a file's holes.
stat() {
	local fmt gfmt out b bs sz
	case $1 in
	-f*)
		fmt=${1#-f}
		shift
		[ -n "$fmt" ] || { fmt=$1; shift; }
		gfmt=$(bsd_stat_format "$fmt") ||
			{ echo "stat: format $fmt not mapped" >&2; return 2; }
		out=$(command stat -c "$gfmt" -- "$1") || return 1
		# %p, first in every format the tests use: the mode in octal
		case $fmt in
		%p*) out=$(printf '%o' "0x${out%%@*}")${out#*@} ;;
		esac
		printf '%s\n' "$out"
		;;
	-h)
		read -r b bs sz < <(command stat -c '%b %B %s' -- "$2") || return 1
		[ $((b * bs)) -lt "$sz" ] && echo 0-0
		return 0
		;;
	*) command stat "$@" ;;
	esac
}

# atf_run CASE: the case's body in a subshell, its cleanup, the record.
atf_run() {
	local rc=0 v
	atf_ident=$1
	suite_case_begin "$1"
	ATF_TMP=$SUITE_CASE.tmp
	mkdir -p "$ATF_TMP"
	("$1_body") >>"$SUITE_CASE.out" 2>>"$SUITE_CASE.err" </dev/null || rc=$?
	if declare -F "$1_cleanup" >/dev/null; then
		("$1_cleanup") >/dev/null 2>&1
	fi
	rm -rf "$ATF_TMP"
	case $rc in
	0) v=PASS ;;
	77) v=SKIP ;;
	*) v=FAIL ;;
	esac
	suite_case_end "$v"
}
