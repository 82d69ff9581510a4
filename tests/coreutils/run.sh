#!/bin/bash
# Runs GNU coreutils' own test suite for cp with smartcp as its cp.
#
# Opt-in: not part of "make check" nor tests/run-all.sh (it needs root and
# the network and takes minutes; see tests/coreutils/README).
#
#   bash tests/coreutils/run.sh [--smartcp PATH | --genuine] [--dir DIR]
#                               [--user NAME] [--tests LIST] [--jobs N]
#                               [--verbose]
#
#   --smartcp PATH  the smartcp to test (default: $abs_top_builddir/src/smartcp,
#                   ./src/smartcp, then _build/src/smartcp of this checkout)
#   --genuine       run the same tests with the tree's own cp instead, as a
#                   baseline (smartcp is neither needed nor installed)
#   --dir DIR       a coreutils source tree to use, built or not (default:
#                   /var/tmp/smartcp-coreutils/coreutils-*, fetched if absent);
#                   9.1 (Debian 12) and later layouts (9.4+ keep most tests
#                   in one folder per program) both work
#   --user NAME     the unprivileged user of the second pass; the tree is
#                   chowned to it (default: smartcp-cu, created if missing)
#   --tests LIST    tests to run, comma or space separated, as
#                   tests/cp/abuse.sh or cp/abuse (default: every
#                   tests/cp/*.sh of the tree and the other tests that call
#                   cp, listed below, where the tree has them)
#   --jobs N        tests run in parallel (default: nproc)
#   --verbose       keep each test's shell trace (set -x) in its log, for
#                   finding out why it failed (also: CU_VERBOSE=yes)
#
# Needs root.  Steps:
#   1. a coreutils source tree: --dir DIR, or the one already fetched into
#      /var/tmp/smartcp-coreutils, or `apt-get source coreutils` there (a
#      deb-src entry for the running Debian release is added when apt has
#      none);
#   2. when the tree has no Makefile or no src/cp yet: apt-get build-dep
#      coreutils, configure and make (once; later runs reuse the build);
#   3. the genuine src/cp is moved aside and smartcp copied in its place;
#      the tests then run it as "cp" (they put src/ first in PATH);
#   4. the tests run twice through "make check-TESTS" (which never relinks
#      src/cp): as root, then as the unprivileged --user, who is given the
#      tree: some tests only run as root, others only as non-root;
#   5. the genuine src/cp is put back, also on failure or Ctrl-C.
#
# With --genuine, step 3 and 5 leave src/cp alone (a genuine cp that an
# interrupted run left in src/cp.gnu is put back first).
#
# One line per test: the verdict, the test, then what each pass said, e.g.
#   PASS tests/cp/abuse.sh  root=PASS user=PASS
# A test passes when no pass failed and at least one passed, fails when a
# pass said FAIL, ERROR or XPASS, and is skipped when both passes skipped.
# Then the listed tests this tree does not have, if any.  Last line:
# "coreutils-cp: N passed, N failed, N skipped".  Exit 1 when a test failed
# or the setup did, else 0.

set -u
export LC_ALL=C
unset LANGUAGE

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fetch_base=/var/tmp/smartcp-coreutils
default_user="smartcp-cu"
# Tests outside tests/cp that call cp (or run every program), one a line,
# under tests/.  Where coreutils moved a test (around 9.4, from misc/ and
# tail-2/ to one folder per program), the line names each place it has
# been, oldest first; the first one the tree has is used.  Tests the tree
# has under none of them are left out, and named after the results.
other_tests="
du/basic.sh
install/basic-1.sh
ln/misc.sh
misc/close-stdout.sh
misc/csplit.sh csplit/csplit.sh
misc/head-c.sh head/head-c.sh
misc/help-version.sh help/help-version.sh
misc/help-version-getopt.sh help/help-version-getopt.sh
misc/invalid-opt.pl
misc/od-j.sh od/od-j.sh
misc/selinux.sh
misc/tac-2-nonseekable.sh tac/tac-2-nonseekable.sh
misc/wc-proc.sh wc/wc-proc.sh
misc/xattr.sh
mv/acl.sh
mv/backup-dir.sh
mv/childproof.sh
mv/dup-source.sh
mv/hard-2.sh
mv/hard-3.sh
mv/i-2.sh
mv/part-symlink.sh
mv/trailing-slash.sh
mv/update.sh
tail-2/tail-c.sh tail/tail-c.sh
csplit/csplit-io-err.sh
dd/fail-ftruncate-fstat.sh
nproc/nproc-quota.sh
split/split-io-err.sh
tail/tail-sysfs.sh
"

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
}

die() {
	echo "coreutils-cp: $*" >&2
	# an empty log directory is of no use
	[ -n "${logdir:-}" ] && rmdir "$logdir" 2>/dev/null
	echo "coreutils-cp: 0 passed, 1 failed, 0 skipped"
	exit 1
}

genuine=no smartcp='' dir='' user='' test_list='' jobs=$(nproc 2>/dev/null || echo 1)
verbose=${CU_VERBOSE:-no}
while [ $# -gt 0 ]; do
	case $1 in
	--smartcp|--dir|--user|--tests|--jobs)
		[ $# -ge 2 ] || die "$1 needs an argument"
		case $1 in
		--smartcp) smartcp=$2 ;;
		--dir) dir=$2 ;;
		--user) user=$2 ;;
		--tests) test_list=$2 ;;
		--jobs) jobs=$2 ;;
		esac
		shift 2
		;;
	--smartcp=*) smartcp=${1#*=}; shift ;;
	--dir=*) dir=${1#*=}; shift ;;
	--user=*) user=${1#*=}; shift ;;
	--tests=*) test_list=${1#*=}; shift ;;
	--jobs=*) jobs=${1#*=}; shift ;;
	--genuine) genuine=yes; shift ;;
	--verbose) verbose=yes; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
case $jobs in
''|*[!0-9]*|0) die "--jobs needs a positive number" ;;
esac
[ $genuine = no ] || [ -z "$smartcp" ] || die "--genuine and --smartcp exclude each other"
[ "$verbose" = yes ] || verbose=no

[ "$(id -u)" = 0 ] ||
	die "run as root (build dependencies, a test user, the root pass)"

# ---- smartcp: --smartcp, else the build directory's src/smartcp
if [ $genuine = no ]; then
	if [ -z "$smartcp" ]; then
		for c in ${abs_top_builddir:+"$abs_top_builddir/src/smartcp"} \
			 "$PWD/src/smartcp" "$top/_build/src/smartcp"; do
			if [ -x "$c" ]; then
				smartcp=$c
				break
			fi
		done
	fi
	{ [ -n "$smartcp" ] && [ -x "$smartcp" ] && [ -f "$smartcp" ]; } ||
		die "smartcp not found (build it, or pass --smartcp PATH)"
	smartcp=$(cd "$(dirname "$smartcp")" && pwd)/$(basename "$smartcp")
fi

# ---- apt helpers (Debian)

# have_deb_src: apt has at least one deb-src entry.
have_deb_src() {
	grep -qsE '^[[:space:]]*deb-src[[:space:]]' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
		grep -qsiE '^Types:.*[[:space:]]deb-src([[:space:]]|$)' \
			/etc/apt/sources.list.d/*.sources
}

# ensure_deb_src: add a deb-src entry for the running Debian release when
# apt has none (apt-get source and apt-get build-dep need one), in the
# deb822 format of /etc/apt/sources.list.d/debian.sources.
ensure_deb_src() {
	local id='' codename='' suites f=/etc/apt/sources.list.d/smartcp-deb-src.sources
	have_deb_src && return 0
	# shellcheck disable=SC1091
	[ -r /etc/os-release ] && id=$(. /etc/os-release && echo "${ID:-}") &&
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	{ [ "$id" = debian ] && [ -n "$codename" ]; } ||
		{ echo "no deb-src entry in apt's sources; add one for this system" >&2; return 1; }
	suites="$codename $codename-updates"
	[ "$codename" = sid ] && suites=sid
	echo "adding $f (deb-src for $codename)"
	cat > "$f" <<-EOF
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: $suites
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
}

apt_updated=no
apt_update() {
	[ $apt_updated = yes ] && return 0
	apt-get update -qq >/dev/null || return 1
	apt_updated=yes
}

# ---- 1. the coreutils tree
if [ -z "$dir" ]; then
	for d in "$fetch_base"/coreutils-*/; do
		[ -f "$d/configure" ] && { dir=${d%/}; break; }
	done
fi
if [ -z "$dir" ]; then
	echo "== fetching coreutils' source (apt-get source) into $fetch_base"
	export DEBIAN_FRONTEND=noninteractive
	{ ensure_deb_src && apt_update; } || die "apt cannot fetch sources"
	command -v dpkg-source >/dev/null ||
		apt-get install -y -qq --no-install-recommends dpkg-dev >/dev/null ||
		die "cannot install dpkg-dev (for apt-get source)"
	{ mkdir -p "$fetch_base" && chmod 755 "$fetch_base"; } || die "cannot create $fetch_base"
	(cd "$fetch_base" && apt-get source -qq coreutils) >"$fetch_base/fetch.log" 2>&1 ||
		{ tail -n 20 "$fetch_base/fetch.log" >&2; die "apt-get source coreutils failed"; }
	for d in "$fetch_base"/coreutils-*/; do
		[ -f "$d/configure" ] && { dir=${d%/}; break; }
	done
	[ -n "$dir" ] || die "apt-get source left no coreutils-*/configure in $fetch_base"
fi
[ -d "$dir" ] || die "no directory $dir"
dir=$(cd "$dir" && pwd)
{ [ -f "$dir/configure" ] && [ -d "$dir/tests/cp" ]; } ||
	die "$dir is not a coreutils source tree"

# logs of the build and of both passes; removed when every test passed
logdir=$(mktemp -d "${TMPDIR:-/tmp}/smartcp-coreutils.XXXXXX") || die "mktemp failed"
chmod 755 "$logdir"

# ---- 2. build coreutils once
if [ ! -f "$dir/Makefile" ] || [ ! -x "$dir/src/cp" ]; then
	echo "== installing coreutils' build dependencies (apt-get build-dep)"
	export DEBIAN_FRONTEND=noninteractive
	{ ensure_deb_src && apt_update &&
		apt-get build-dep -y -qq coreutils >"$logdir/build-dep.log" 2>&1; } ||
		{ tail -n 20 "$logdir/build-dep.log" >&2 2>/dev/null; die "apt-get build-dep coreutils failed"; }
	echo "== building coreutils in $dir (log: $logdir/build.log)"
	(
		cd "$dir" || exit 1
		# configure refuses to run as root without this
		if [ ! -f Makefile ]; then
			FORCE_UNSAFE_CONFIGURE=1 ./configure --quiet || exit 1
		fi
		make -j"$jobs"
	) >"$logdir/build.log" 2>&1 ||
		{ tail -n 30 "$logdir/build.log" >&2; die "building coreutils failed"; }
fi
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$dir/Makefile")

# ---- the unprivileged user of the second pass
if [ -z "$user" ]; then
	user=$default_user
	if ! id -u "$user" >/dev/null 2>&1; then
		echo "== creating user $user"
		useradd --system --user-group --no-create-home \
			--home-dir /nonexistent --shell /usr/sbin/nologin "$user" ||
			die "useradd $user failed"
	fi
fi
id -u "$user" >/dev/null 2>&1 || die "no user $user"
[ "$(id -u "$user")" != 0 ] || die "--user must not be root"
group=$(id -gn "$user")

# ---- the tests: --tests (comma or space separated), else tests/cp/*.sh
# and the other tests that call cp

# find_test NAME: print the tree's path (tests/...) of NAME, given as
# tests/d/t.sh, d/t.sh or d/t, or as any of the places other_tests lists
# for it; fail when the tree has it nowhere.
find_test() {
	local t=${1#./} line name place ext
	t=${t#tests/}
	for ext in '' .sh .pl; do
		[ -f "$dir/tests/$t$ext" ] && { echo "tests/$t$ext"; return 0; }
	done
	# not there: try the other places other_tests lists for it
	while read -r line; do
		for name in $line; do
			case $name in "$t"|"$t".sh|"$t".pl) ;; *) continue ;; esac
			for place in $line; do
				[ -f "$dir/tests/$place" ] && { echo "tests/$place"; return 0; }
			done
			return 1
		done
	done <<<"$other_tests"
	return 1
}

tests=()
missing=()
if [ -n "$test_list" ]; then
	for t in ${test_list//,/ }; do
		p=$(find_test "$t") || die "no test $t in $dir"
		tests+=("$p")
	done
else
	for t in "$dir"/tests/cp/*.sh; do
		[ -f "$t" ] && tests+=("tests/cp/${t##*/}")
	done
	while read -r line; do
		[ -n "$line" ] || continue
		if p=$(find_test "${line%% *}"); then
			tests+=("$p")
		else
			missing+=("${line// / or }")
		fi
	done <<<"$other_tests"
fi
[ ${#tests[@]} -gt 0 ] || die "no tests selected"

# ---- 3. smartcp as src/cp; the genuine one waits in src/cp.gnu
cp_bin=$dir/src/cp
saved=$dir/src/cp.gnu
installed=no
give_tree=''

# is_gnu_cp FILE: FILE is coreutils' own cp (smartcp says "(smartcp)").
is_gnu_cp() {
	"$1" --version 2>/dev/null | head -n 1 | grep -q '(GNU coreutils)'
}

restore() {
	# what a root pass cut short left behind goes to the user too
	[ -n "$give_tree" ] && chown -R "$user:$group" "$dir"
	give_tree=''
	[ $installed = yes ] || return 0
	if mv -f "$saved" "$cp_bin"; then
		echo "== genuine cp restored: $cp_bin"
	else
		echo "coreutils-cp: could not restore $cp_bin from $saved" >&2
	fi
	installed=no
}
trap restore EXIT
trap 'echo "coreutils-cp: interrupted; logs: $logdir" >&2; exit 130' INT
trap 'echo "coreutils-cp: terminated; logs: $logdir" >&2; exit 143' TERM HUP

if [ $genuine = yes ]; then
	if ! is_gnu_cp "$cp_bin" && [ -f "$saved" ] && is_gnu_cp "$saved"; then
		# an earlier run was killed before it could restore
		mv -f "$saved" "$cp_bin" || die "cannot restore $cp_bin from $saved"
		echo "== genuine cp restored: $cp_bin"
	fi
	is_gnu_cp "$cp_bin" ||
		die "$cp_bin is not GNU cp and there is no $saved; rebuild it (rm $cp_bin; make -C $dir src/cp)"
elif is_gnu_cp "$cp_bin"; then
	mv -f "$cp_bin" "$saved" || die "cannot move $cp_bin aside"
elif [ -f "$saved" ] && is_gnu_cp "$saved"; then
	# an earlier run was killed before it could restore: keep its copy
	echo "== $cp_bin is not GNU cp; the genuine one is still in $saved"
else
	die "$cp_bin is not GNU cp and there is no $saved; rebuild it (rm $cp_bin; make -C $dir src/cp)"
fi
if [ $genuine = no ]; then
	installed=yes
	# a fresh copy (never a link: the tree is chowned to the test user),
	# and newer than cp's objects so that nothing relinks it
	{ cp -f "$smartcp" "$cp_bin.new" && chmod 755 "$cp_bin.new" &&
		mv -f "$cp_bin.new" "$cp_bin" && touch "$cp_bin"; } ||
		die "cannot install $smartcp as $cp_bin"
	"$cp_bin" --version 2>/dev/null | head -n 1 | grep -q '(smartcp)' ||
		die "$cp_bin does not run as smartcp"
	echo "== coreutils ${version:-?} in $dir; cp is $smartcp"
else
	echo "== coreutils ${version:-?} in $dir; cp is its own (--genuine)"
fi

# ---- 4. the two passes

# run_pass NAME [runuser -u USER --]: run the selected tests through make
# check-TESTS, then keep each test's .log and .trs under $logdir/NAME.
run_pass() {
	local name=$1 t b
	shift
	for t in "${tests[@]}"; do
		b=${t%.*}
		rm -f "$dir/$b.log" "$dir/$b.trs"
	done
	"$@" make -C "$dir" -j"$jobs" check-TESTS TESTS="${tests[*]}" \
		VERBOSE="$verbose" RUN_EXPENSIVE_TESTS=yes RUN_VERY_EXPENSIVE_TESTS=yes \
		NON_ROOT_USERNAME=nobody </dev/null >"$logdir/$name.make.log" 2>&1
	for t in "${tests[@]}"; do
		b=${t%.*}
		mkdir -p "$logdir/$name/${b%/*}"
		cp -f "$dir/$b.log" "$dir/$b.trs" "$logdir/$name/${b%/*}/" 2>/dev/null
	done
}

# result NAME TEST: what pass NAME said about TEST (ERROR without a .trs).
result() {
	local r
	r=$(sed -n 's/^:test-result: //p' "$logdir/$1/${2%.*}.trs" 2>/dev/null | head -n 1)
	echo "${r:-ERROR}"
}

start=$(date +%s)
echo "== pass 1: ${#tests[@]} tests as root (-j$jobs)"
give_tree=yes
run_pass root

# the user owns the tree (also what root's pass left behind), and can reach it
chown -R "$user:$group" "$dir" || die "cannot chown $dir to $user"
give_tree=''
runuser -u "$user" -- test -w "$dir/tests/cp" ||
	die "$user cannot write to $dir/tests/cp (a parent directory is closed?)"
echo "== pass 2: ${#tests[@]} tests as $user (-j$jobs)"
run_pass user runuser -u "$user" --

restore

# ---- results
npass=0 nfail=0 nskip=0
for t in "${tests[@]}"; do
	r1=$(result root "$t")
	r2=$(result user "$t")
	verdict=SKIP
	for r in "$r1" "$r2"; do
		case $r in
		PASS|XFAIL) [ $verdict = SKIP ] && verdict=PASS ;;
		SKIP) ;;
		*) verdict=FAIL ;;
		esac
	done
	echo "$verdict $t  root=$r1 user=$r2"
	case $verdict in
	PASS) npass=$((npass + 1)) ;;
	SKIP) nskip=$((nskip + 1)) ;;
	FAIL)
		nfail=$((nfail + 1))
		for p in root user; do
			case $(result $p "$t") in
			PASS|XFAIL|SKIP) ;;
			*) echo "    $p: $logdir/$p/${t%.*}.log" ;;
			esac
		done
		;;
	esac
done

echo "== $(( $(date +%s) - start )) s for both passes"
if [ ${#missing[@]} -gt 0 ]; then
	echo "== not in this coreutils, left out (${#missing[@]}):"
	printf '   %s\n' "${missing[@]}"
fi
if [ "$nfail" -eq 0 ]; then
	rm -rf "$logdir"
else
	echo "logs: $logdir"
fi
echo "coreutils-cp: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
