#!/bin/bash
# Generated content (proc, sysfs, tracefs, debugfs) is read until read
# returns 0, whatever st_size says (0 on proc, 4096 on sysfs): the copy
# equals what cat reads, including a file larger than 64 KiB, and strace
# shows that neither copy_file_range nor FICLONE was tried on such a file.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts tracefs and debugfs"
need_cmd strace

ncopied=0

# check_generated SRC FSTYPE: copy SRC (which must live on FSTYPE) and check
# bytes and roads.
check_generated() {
	local src=$1 type=$2 dst log n
	ncopied=$((ncopied + 1))
	dst=$T/out/$ncopied
	log=$T/trace.$ncopied
	assert_eq "$(fs_type "$src")" "$type" "filesystem of $src"
	n=$(cat "$src" | wc -c)
	say "$src ($type, st_size $(stat -c %s "$src"), cat reads $n bytes)"
	copy_generated "$src" "$dst" "$log" -v
	assert_calls "$log" copy_file_range -eq 0
	assert_calls "$log" FICLONE -eq 0
	pass "$src: bytes equal, $(roads_called "$log")"
}

# Lengths are taken with "cat | wc -c" on purpose: the file is generated,
# its st_size is no length.

# stable FILE: non-empty, readable within 2 s, and the same twice.
stable() {
	local a b
	a=$(timeout 2 cat "$1" 2>/dev/null | md5sum) || return 1
	b=$(timeout 2 cat "$1" 2>/dev/null | md5sum) || return 1
	[ "$a" = "$b" ] && [ "$a" != "$(md5sum </dev/null)" ]
}

# first_stable FILE...: echo the first stable file.
first_stable() {
	local f
	for f in "$@"; do
		[ -f "$f" ] && [ -r "$f" ] && stable "$f" && { echo "$f"; return 0; }
	done
	return 1
}

mkdir "$T/out"

# proc: st_size 0.
check_generated /proc/version proc
check_generated /proc/cpuinfo proc

# A generated file larger than 64 KiB (pipe and buffer sizes).
big=$(first_stable /proc/kallsyms) || fail "/proc/kallsyms is not stable here"
[ "$(cat "$big" | wc -c)" -gt 65536 ] || fail "$big is not larger than 64 KiB"
check_generated "$big" proc

# sysfs: a text attribute says st_size 4096 and holds a few bytes.
f=$(first_stable /sys/devices/system/cpu/online \
	/sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/uevent_seqnum) ||
	fail "no stable sysfs attribute found"
assert_eq "$(stat -c %s "$f")" 4096 "st_size of $f"
check_generated "$f" sysfs
[ "$(stat -c %s "$T/out/$ncopied")" -lt 4096 ] ||
	fail "copy of $f is not shorter than the 4096 bytes st_size claims"
pass "$f: copy has the $(stat -c %s "$T/out/$ncopied") real bytes, not 4096"

# sysfs: a binary attribute larger than 4096 (BTF, ACPI tables).
f=$(first_stable /sys/kernel/btf/vmlinux /sys/firmware/acpi/tables/DSDT) ||
	fail "no stable sysfs file larger than 4096 bytes found"
[ "$(cat "$f" | wc -c)" -gt 4096 ] || fail "$f is not larger than 4096 bytes"
check_generated "$f" sysfs

# tracefs: st_size 0; available_events is large (tens of KiB).
tr=$(ensure_tracefs)
f=$(first_stable "$tr/available_events") ||
	fail "$tr/available_events is not stable"
check_generated "$f" tracefs
f=$(first_stable "$tr/README") || fail "$tr/README is not stable"
check_generated "$f" tracefs

# debugfs: pick a stable, non-empty file outside tracing/.
dbg=$(ensure_debugfs)
mapfile -t found < <(find "$dbg" -path "$dbg/tracing" -prune -o -type f \
	-perm -0400 -print 2>/dev/null | head -n 200)
f=$(first_stable "$dbg/x86/topo/domains" "$dbg/clk/clk_summary" \
	"${found[@]}") || fail "no stable debugfs file found"
check_generated "$f" debugfs
