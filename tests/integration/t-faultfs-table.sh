#!/bin/bash
# Every fault scenario of lib-faultfs.sh on every road (the default plan,
# and --road=copy_file_range|splice|read_write each with read_write after
# it), delivered by the kernel from faultfs, a FUSE filesystem: sizes that
# lie (0, 4096), EIO reading or writing at the start, middle and end,
# ENOSPC from a file limit and from a full filesystem, with and without
# --atomic, and a server-side copy_file_range that flips a byte under
# --verify.  Each cell checks exit status, bytes, the message naming the
# side and its file, that no destination looks complete when it is not,
# that the source is unchanged, and that the fault struck on that road.
# Prints the scenario x road table (lines starting with "|") and fails
# when any cell failed; the failing cells' output follows the table.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup

nfail=0 ncells=0
for sc in $FF_SCENARIOS; do
	for road in $FF_ROADS; do
		rc=0
		ncells=$((ncells + 1))
		# A subshell per cell: fail() ends the cell, not the table.
		( ff_cell "$sc" "$road" ) >"$T/cell.$sc.$road" 2>&1 || rc=$?
		echo "$rc" >"$T/rc.$sc.$road"
		if [ "$rc" -ne 0 ]; then
			nfail=$((nfail + 1))
			# a failed cell may leave rules behind: start clean
			clear_fault "$T/ff/in/src"
		fi
	done
done

row() { printf '| %-20s | %-15s | %-15s | %-15s | %-15s |\n' "$@"; }
echo
# shellcheck disable=SC2086 # one column per road
row "scenario \\ road" $FF_ROADS
row -------------------- --------------- --------------- --------------- ---------------
for sc in $FF_SCENARIOS; do
	set -- "$sc"
	for road in $FF_ROADS; do
		if [ "$(cat "$T/rc.$sc.$road")" -eq 0 ]; then
			set -- "$@" PASS
		else
			set -- "$@" FAIL
		fi
	done
	row "$@"
done
echo

for sc in $FF_SCENARIOS; do
	for road in $FF_ROADS; do
		[ "$(cat "$T/rc.$sc.$road")" -eq 0 ] && continue
		echo "--- $sc on road $road:"
		cat "$T/cell.$sc.$road"
	done
done
[ "$nfail" -eq 0 ] || fail "$nfail of $ncells scenario x road cells failed"
pass "all $ncells scenario x road cells"
