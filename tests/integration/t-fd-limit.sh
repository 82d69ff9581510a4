#!/bin/bash
# Under a small descriptor limit a tree still copies whole: smartcp shares
# RLIMIT_NOFILE among the directories it keeps open, its -j workers and
# their queue and read-ahead (jobs.c, fd_plan()), counting what the
# caller left open, and runs fewer workers where they would not all fit.
# 40 directories of 30 small files under `ulimit -n 64` with the default
# -j and -j8, and `ulimit -n 32` with -j2; then the same with most of the
# 64 taken by descriptors the caller left open.  When none are left at
# all, every file is named with the reason, and the exit status is 1.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
for d in $(seq 40); do
	mkdir -p "src/d$d"
	for f in $(seq 30); do
		printf 'file %s of %s\n' "$f" "$d" >"src/d$d/f$f"
	done
done
chmod 750 src/d7
ln src/d3/f1 src/d9/link

# copy_under LIMIT EXTRA OPTION...: src to a fresh dst under ulimit -n
# LIMIT, with EXTRA more descriptors left open by the caller; exit 0,
# nothing said, and the copy the same as the source
copy_under() {
	local limit=$1 extra=$2 fd
	shift 2
	rm -rf dst
	(
		ulimit -n "$limit"
		for fd in $(seq 10 $((10 + extra - 1))); do
			eval "exec $fd</dev/null"
		done
		exec "$SMARTCP" "$@" src dst
	) >"$OUT" 2>"$ERR" || {
		rc=$?
		_show "$ERR"
		fail "'smartcp $* src dst' under ulimit -n $limit ($extra left open) exited $rc"
	}
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "'smartcp $*' said something"; }
	diff -r src dst >"$T/.diff" 2>&1 || {
		_show "$T/.diff"
		fail "the copy differs (smartcp $*, ulimit -n $limit)"
	}
	case " $* " in
	*" -a "*)
		[ "$(stat -c %i dst/d3/f1)" = "$(stat -c %i dst/d9/link)" ] ||
			fail "the hard link became two files (smartcp $*)" ;;
	esac
}

for opts in "-a" "-a -j8" "-r -j8"; do
	say "ulimit -n 64, smartcp $opts"
	# shellcheck disable=SC2086
	copy_under 64 0 $opts
	pass "$opts: 1,200 files, equal"
done
assert_eq "$(stat -c %a dst/d7)" 750 "mode of src/d7's copy"

say "ulimit -n 32, smartcp -a -j2"
copy_under 32 0 -a -j2
pass "-a -j2 under 32: equal"

for extra in 30 50; do
	say "ulimit -n 64 with $extra descriptors left open, smartcp -a -j8"
	copy_under 64 "$extra" -a -j8
	pass "$extra left open: equal"
done

say "no descriptor left at all: every file named, exit 1"
rm -rf dst
rc=0
(
	ulimit -n 64
	for fd in $(seq 6 62); do
		eval "exec $fd</dev/null"
	done
	exec "$SMARTCP" -a -j8 src dst
) >"$OUT" 2>"$ERR" || rc=$?
assert_eq "$rc" 1 "exit status"
n=$(grep -c "Too many open files" "$ERR" || true)
[ "$n" -ge 1200 ] || { _show "$ERR"; fail "$n files named, expected every one"; }
pass "exit 1, $n messages naming the file and the reason"
