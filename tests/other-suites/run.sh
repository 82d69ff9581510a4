#!/bin/bash
# Runs other projects' test suites for cp with GNU cp and with smartcp, each
# installed as "cp" first in PATH, and compares the two case by case.
#
# Opt-in: not part of "make check" nor tests/run-all.sh (it fetches sources
# with apt-get and runs some cases as another user; see README here).
#
#   bash tests/other-suites/run.sh [--smartcp PATH] [--gnu PATH]
#        [--src DIR] [--freebsd FILE] [--netbsd FILE] [--only LIST]
#        [--work DIR]
#        [--details FILE] [--fetch-only]
#
#   --smartcp PATH  the smartcp to test (default: _build/src/smartcp or
#                   src/smartcp of this checkout)
#   --gnu PATH      the GNU cp to compare with (default: /bin/cp)
#   --src DIR       where the suites' sources are fetched to and kept
#                   (default: /var/tmp/smartcp-other-suites)
#   --freebsd FILE  FreeBSD's ATF test of cp (bin/cp/tests/ in FreeBSD's
#                   tree): Debian has no package of it, so it is run only
#                   when given (default: DIR/freebsd/cp_test.sh if there)
#   --netbsd FILE   NetBSD's ATF test of cp (tests/bin/cp/ in NetBSD's tree),
#                   the same way (default: DIR/netbsd/t_cp.sh if there)
#   --only LIST     suites to run, comma separated, of: busybox,
#                   busybox-old, toybox, freebsd, netbsd, uutils (default:
#                   all)
#   --work DIR      where the cases run and their records stay (default: a
#                   new folder under /var/tmp, removed when no case differs)
#   --details FILE  write every difference there, as unified diffs of the
#                   two records (- GNU cp, + smartcp)
#   --fetch-only    fetch the sources the suites need, run nothing
#
# The suites (see README): BusyBox's testsuite/cp.tests and testsuite/cp/,
# toybox's tests/cp.test (both from Debian's source packages, fetched with
# apt-get source through an apt configuration of its own, made from the
# system's deb entries, in DIR/apt), FreeBSD's and NetBSD's ATF tests, and
# cases written here from what uutils' tests of cp assert (uutils.sh).
#
# Each case runs twice, in folders of the same path length, once per cp.
# A case's record is the suite's verdict, what the case printed, every cp
# call (arguments, exit status, stdout, stderr) and the files left; run
# folder names are replaced before the records are compared.  The table:
# suite, cases run, cases the suite skipped, passed with GNU cp, passed
# with smartcp, cases whose records differ; then each differing case, with
# the parts of its record that differ (verdict, out, err, calls, files).  Exit status 1 when a case
# differs, 2 when a suite could not run.

set -u
export LC_ALL=C
unset LANGUAGE

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; }
die() {
	echo "other-suites: $*" >&2
	exit 2
}

smartcp='' gnu=/bin/cp src=/var/tmp/smartcp-other-suites freebsd='' netbsd=''
only=''
work='' details='' fetch_only=no
while [ $# -gt 0 ]; do
	case $1 in
	--smartcp | --gnu | --src | --freebsd | --netbsd | --only | --work | --details)
		[ $# -ge 2 ] || die "$1 needs an argument"
		opt=${1#--}
		printf -v "$opt" '%s' "$2"
		shift 2
		;;
	--*=*)
		opt=${1%%=*}
		opt=${opt#--}
		case $opt in
		smartcp | gnu | src | freebsd | netbsd | only | work | details) ;;
		*) die "unknown option: $1 (see --help)" ;;
		esac
		printf -v "$opt" '%s' "${1#*=}"
		shift
		;;
	--fetch-only) fetch_only=yes; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done

all_suites="busybox busybox-old toybox freebsd netbsd uutils"
suites=${only//,/ }
suites=${suites:-$all_suites}
for s in $suites; do
	case " $all_suites " in
	*" $s "*) ;;
	*) die "no suite $s (there are: $all_suites)" ;;
	esac
done

if [ -z "$smartcp" ]; then
	for c in "$top/_build/src/smartcp" "$top/src/smartcp"; do
		[ -x "$c" ] && { smartcp=$c; break; }
	done
fi
if [ $fetch_only = no ]; then
	[ -n "$smartcp" ] && [ -x "$smartcp" ] ||
		die "smartcp not found (build it, or pass --smartcp PATH)"
	smartcp=$(cd "$(dirname "$smartcp")" && pwd)/$(basename "$smartcp")
	"$gnu" --version 2>/dev/null | grep -q 'GNU coreutils' || die "$gnu is not GNU cp"
	gnu=$(command -v "$gnu")
fi
[ -n "$freebsd" ] || [ ! -f "$src/freebsd/cp_test.sh" ] || freebsd=$src/freebsd/cp_test.sh
[ -n "$netbsd" ] || [ ! -f "$src/netbsd/t_cp.sh" ] || netbsd=$src/netbsd/t_cp.sh

# Some cases run as uid 65534 (toybox's cases that root would pass anyway,
# FreeBSD's cases that require an unprivileged user): as root only.
if [ "$(id -u)" = 0 ]; then
	NB=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
else
	NB=()
fi

# ---- the sources

# apt_src: an apt configuration that has a deb-src entry for each deb entry
# of the system's, under $src/apt, and apt-get's options for it.
apt_src() {
	local a=$src/apt f
	apt_opts=(-o "Dir::Etc::SourceList=$a/sources.list"
		-o "Dir::Etc::SourceParts=$a/parts"
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache"
		-o APT::Sandbox::User=root -qq)
	[ -f "$a/updated" ] && return 0
	mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial" || return 1
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' >"$a/sources.list"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >"$a/parts/${f##*/}"
	done
	apt-get "${apt_opts[@]}" update >"$a/update.log" 2>&1 ||
		{ tail -n 5 "$a/update.log" >&2; return 1; }
	touch "$a/updated"
}

# fetch PACKAGE: its upstream source unpacked in $src/PACKAGE/ (Debian's
# patches are not applied: the suites are the upstream ones).
fetch() {
	local p=$1 d=$src/$1 t
	[ -f "$d/unpacked" ] && return 0
	[ "$(id -u)" = 0 ] || die "fetching $p needs root (apt-get), or a $d/ fetched before"
	echo "== fetching $p's source (apt-get source)" >&2
	apt_src || die "apt cannot fetch sources"
	rm -rf "$d" && mkdir -p "$d" || die "cannot make $d"
	# The Debian part of a package may be gone from the archive while its
	# upstream tarball is there: that is all this needs.
	(cd "$d" && apt-get "${apt_opts[@]}" source --download-only "$p") >"$d/fetch.log" 2>&1
	t=$(ls "$d"/*.orig.tar.* 2>/dev/null | head -n 1)
	[ -n "$t" ] || { tail -n 5 "$d/fetch.log" >&2; die "apt-get source $p gave no upstream tarball"; }
	tar -xf "$t" -C "$d" || die "cannot unpack $t"
	touch "$d/unpacked"
}

for s in $suites; do
	case $s in
	busybox*) fetch busybox ;;
	toybox) fetch toybox ;;
	esac
done
[ $fetch_only = no ] || exit 0
bb_dir=$(ls -d "$src"/busybox/busybox-*/ 2>/dev/null | head -n 1)
toy_dir=$(ls -d "$src"/toybox/toybox-*/ 2>/dev/null | head -n 1)

# ---- the two cps

if [ -n "$work" ]; then
	mkdir -p "$work" || die "cannot make $work"
	W=$(cd "$work" && pwd)
else
	W=$(mktemp -d /var/tmp/smartcp-suites.XXXXXX) || die "mktemp failed"
fi
chmod 755 "$W"
mkdir -p "$W/shim"

# The cp of each run: a script that runs the real one under the name "cp"
# (as the suites call it, so it names itself "cp" in messages) and notes
# each call in $SUITE_CALLS when the case's record asks for it.
make_cp() {
	mkdir -p "$W/bin-$1"
	cat >"$W/bin-$1/cp" <<-EOF
		#!/bin/bash
		real='$2'
		[ -n "\${SUITE_CALLS:-}" ] || exec -a cp "\$real" "\$@"
		tmp=\$(mktemp -d) || exit 125
		rc=0
		(exec -a cp "\$real" "\$@") >"\$tmp/out" 2>"\$tmp/err" || rc=\$?
		note() {
			local n
			n=\$(stat -c %s "\$2")
			[ "\$n" = 0 ] && return
			if [ "\$n" -le 4096 ]; then
				echo "\$1:"
				sed 's/^/  /' "\$2"
			else
				echo "\$1: \$n bytes, md5 \$(md5sum <"\$2" | cut -d' ' -f1)"
			fi
		}
		{
			printf '\$ cp'
			printf ' %q' "\$@"
			printf '\n'
			note stdout "\$tmp/out"
			note stderr "\$tmp/err"
			echo "status \$rc"
		} >>"\$SUITE_CALLS"
		cat "\$tmp/out"
		cat "\$tmp/err" >&2
		rm -rf "\$tmp"
		exit "\$rc"
	EOF
	chmod 755 "$W/bin-$1/cp"
}
make_cp g "$gnu"
make_cp o "$smartcp"

# BusyBox's old-style tests call "busybox cp" and, as root, setuidgid.
printf '#!/bin/sh\nexec "$@"\n' >"$W/shim/busybox"
printf '#!/bin/sh\nu=$1\nshift\nexec setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"\n' \
	>"$W/shim/setuidgid"
chmod 755 "$W/shim/busybox" "$W/shim/setuidgid"

if [ ${#NB[@]} -gt 0 ] && ! "${NB[@]}" "$W/bin-o/cp" --version >/dev/null 2>&1; then
	echo "other-suites: uid 65534 cannot run $smartcp (a folder on its path not searchable?)" >&2
	NB=()
fi

export SUITE_LIB=$here/lib.sh
head -c 64 < <(yes 'the same bytes in both runs') >"$W/random"

# ---- the suites: run_SUITE g|o, in $W/g|o/SUITE, records in $W/log-g|o/SUITE

# prep SUITE IMPL: sets run (its folder), log (its records) and the
# environment of the suite's shell.
prep() {
	run=$W/$2/$1
	log=$W/log-$2/$1
	rm -rf "$run" "$log"
	mkdir -p "$run" "$log"
	chmod 755 "$W/$2" "$W/log-$2"
	export SUITE_LOG=$log SUITE_WORK=$run
	PATH_RUN=$W/bin-$2:$W/shim:$PATH
}

run_busybox() {
	prep busybox "$1"
	cp "$here/testing-bb.sh" "$run/testing.sh"
	(cd "$run" && PATH=$PATH_RUN sh "$bb_dir/testsuite/cp.tests") \
		>"$log/suite.out" 2>&1
}

run_busybox_old() {
	local f n
	prep busybox-old "$1"
	for f in "$bb_dir"/testsuite/cp/*; do
		n=${f##*/}
		mkdir "$run/$n"
		(
			cd "$run/$n" || exit 1
			export SUITE_WORK=$run/$n
			# shellcheck source=tests/other-suites/lib.sh
			. "$SUITE_LIB"
			suite_case_begin "$n"
			if PATH=$PATH_RUN sh -e "$f" >"$SUITE_CASE.out" 2>"$SUITE_CASE.err"; then
				suite_case_end PASS
			else
				suite_case_end FAIL
			fi
		)
	done
}

# toybox's test makes a file from /dev/urandom: the same 64 bytes in both
# runs instead, so that the files left compare.  As root it runs as uid
# 65534, since it skips three cases for root.
run_toybox() {
	prep toybox "$1"
	sed 's#if=/dev/urandom#if="$SUITE_RANDOM"#' "$toy_dir/tests/cp.test" >"$log/cp.test"
	[ ${#NB[@]} -eq 0 ] || chown -R 65534:65534 "$run" "$log"
	(cd "$run" && PATH=$PATH_RUN SUITE_RANDOM=$W/random "${NB[@]}" bash -c \
		'. "$0/testing-toy.sh"; . "$SUITE_LOG/cp.test"' "$here") \
		>"$log/suite.out" 2>&1
}

# An ATF test of a BSD, case by case in a folder of its own; the cases that
# require an unprivileged user run as uid 65534 (as root).  The process
# number in a file name of FreeBSD's is made a constant, so that the runs
# compare.  run_atf SUITE FILE IMPL.
run_atf() {
	local t d pre
	prep "$1" "$3"
	sed 's/\$\$/4242/g' "$2" >"$log/atf_test"
	local load='. "$SUITE_LIB"; . "$0/atf.sh"; . "$SUITE_LOG/atf_test"; atf_init_test_cases'
	for t in $(bash -c "$load; atf_list" "$here"); do
		d=$run/$t
		mkdir "$d"
		pre=()
		if [ "$(bash -c "$load; atf_require_user $t" "$here")" = unprivileged ] &&
			[ ${#NB[@]} -gt 0 ]; then
			chown 65534:65534 "$d"
			chown -R 65534:65534 "$log"
			pre=("${NB[@]}")
		fi
		(cd "$d" && PATH=$PATH_RUN SUITE_WORK=$d "${pre[@]}" bash -c \
			"$load; atf_run $t" "$here") >>"$log/suite.out" 2>&1
	done
}
run_freebsd() { run_atf freebsd "$freebsd" "$1"; }
run_netbsd() { run_atf netbsd "$netbsd" "$1"; }

run_uutils() {
	prep uutils "$1"
	(cd "$run" && PATH=$PATH_RUN SUITE_AS="${NB[*]}" bash -c '. "$SUITE_LIB"; . "$0/uutils.sh"; uutils_cases' \
		"$here") >"$log/suite.out" 2>&1
}

ran=()
for s in $suites; do
	case $s in
	busybox* | toybox)
		if [ "$s" = toybox ]; then
			[ -n "$toy_dir" ] || { echo "other-suites: no toybox source" >&2; continue; }
		else
			[ -n "$bb_dir" ] || { echo "other-suites: no busybox source" >&2; continue; }
		fi
		;;
	freebsd | netbsd)
		f=${!s}
		[ -n "$f" ] && [ -f "$f" ] ||
			{ echo "other-suites: $s's test not given (--$s FILE): not run" >&2; continue; }
		;;
	esac
	# one after the other: side by side, the two trees' inodes would
	# interleave, and a directory's entries are copied in inode order
	for impl in g o; do
		"run_${s//-/_}" "$impl"
	done
	ran+=("$s")
done

# ---- the comparison

norm() {
	sed -e "s#$W/bin-[go]/cp#cp#g" -e "s#$W/log-[go]\b#LOG#g" -e "s#$W/[go]\b#WORK#g"
}

# part LOGDIR NNN PART: one part of a case's record (name, verdict, out,
# err, calls, files), run folders replaced.
part() {
	[ -f "$1/$2.$3" ] && norm <"$1/$2.$3"
}

# record LOGDIR NNN: the case's record.
record() {
	local f
	for f in name verdict out err calls files; do
		echo "--- $f"
		part "$1" "$2" "$f"
	done
}

# parts_differ NNN: the parts of the case's two records that differ.
parts_differ() {
	local f list=()
	for f in name verdict out err calls files; do
		cmp -s <(part "$lg" "$1" "$f") <(part "$lo" "$1" "$f") || list+=("$f")
	done
	echo "${list[*]}"
}

: >"$W/details"
ndiff_all=0
all_differ=()
printf '%-12s %6s %6s %8s %8s %6s\n' suite cases skip "GNU cp" smartcp differ
for s in "${ran[@]}"; do
	lg=$W/log-g/$s lo=$W/log-o/$s
	n=0 skip=0 pg=0 po=0 nd=0 differ=()
	for c in "$lg"/[0-9][0-9][0-9].name "$lo"/[0-9][0-9][0-9].name; do
		[ -f "$c" ] || continue
		c=${c##*/}
		c=${c%.name}
		case " ${seen:-} " in *" $s/$c "*) continue ;; esac
		seen="${seen:-} $s/$c"
		vg=$(cat "$lg/$c.verdict" 2>/dev/null)
		vo=$(cat "$lo/$c.verdict" 2>/dev/null)
		if [ "$vg" = SKIP ] && [ "$vo" = SKIP ]; then
			skip=$((skip + 1))
			continue
		fi
		n=$((n + 1))
		[ "$vg" = PASS ] && pg=$((pg + 1))
		[ "$vo" = PASS ] && po=$((po + 1))
		if ! diff -u --label "GNU cp" --label smartcp <(record "$lg" "$c") <(record "$lo" "$c") \
			>"$W/diff" 2>&1; then
			nd=$((nd + 1))
			differ+=("$s: $(cat "$lg/$c.name" 2>/dev/null || cat "$lo/$c.name") (GNU cp ${vg:-none}, smartcp ${vo:-none}; differ: $(parts_differ "$c"))")
			{ echo "=== $s $c"; cat "$W/diff"; } >>"$W/details"
		fi
	done
	printf '%-12s %6d %6d %8d %8d %6d\n' "$s" "$n" "$skip" "$pg" "$po" "$nd"
	ndiff_all=$((ndiff_all + nd))
	all_differ+=("${differ[@]}")
done
if [ "$ndiff_all" -gt 0 ]; then
	echo
	echo "cases that differ:"
	printf '  %s\n' "${all_differ[@]}"
fi
[ -z "$details" ] || cp "$W/details" "$details"
if [ "$ndiff_all" -eq 0 ] && [ -z "$work" ]; then
	rm -rf "$W"
else
	echo "records in $W"
fi
[ "$ndiff_all" -eq 0 ]
