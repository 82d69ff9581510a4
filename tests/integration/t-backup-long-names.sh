#!/bin/bash
# Backup names too long for their directory, as GNU cp 9.1 makes them
# (gnulib's backupfile), byte for byte: a numbered backup (or an
# "existing" one: --backup=existing, -b) whose last name would be NAME_MAX
# (255) bytes or more becomes NAME~, the first bytes of the file's last
# name (at most 253 of them) and "~"; a simple backup's name is never
# shortened, and its rename fails "File name too long" as cp's does.  A
# numbered name, shortened or not, never replaces a file already there
# (cp renames with RENAME_NOREPLACE: "cannot backup ...: File exists"); a
# simple one does.  A name as long as the highest backup there is not
# shortened (that length fits), and N is counted as cp counts it.  Before, smartcp failed every backup name over 255
# bytes ("cannot backup ...: File name too long", exit 1).  Same case
# runner as t-cp-compat.sh (lib-compat.sh): status, output, messages and
# the files left.
# shellcheck disable=SC2016 # the cases' $N is their shell's
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-compat.sh"

compat_init
say "comparing with $("$GNU_CP" --version | head -n 1)"

# n LEN: a name of LEN bytes ("x" repeated), set as N in the snippet
n() { printf 'N=$(printf "x%%.0s" {1..%d});' "$1"; }
compat_setup() { echo new >s; }

for len in 250 251 252 253 254 255; do
	for kind in simple numbered existing; do
		c "$kind-$len" "$(n "$len") echo old >\"\$N\"; \"\$CP\" --backup=$kind s \"\$N\""
		c "$kind-$len-bak" "$(n "$len") echo old >\"\$N\"; \"\$CP\" --backup=$kind --suffix=.bak s \"\$N\""
	done
done
c b-252			"$(n 252) echo old >\"\$N\"; \"\$CP\" -b s \"\$N\""
c b-252-numbered-env	"$(n 252) echo old >\"\$N\"; VERSION_CONTROL=numbered \"\$CP\" -b s \"\$N\""
c v-numbered-252	"$(n 252) echo old >\"\$N\"; \"\$CP\" -v --backup=numbered s \"\$N\""
c numbered-10-of-250	"$(n 250) echo old >\"\$N\"; echo 9 >\"\$N.~9~\"; \"\$CP\" --backup=numbered s \"\$N\""
c existing-10-of-250	"$(n 250) echo old >\"\$N\"; echo 9 >\"\$N.~9~\"; \"\$CP\" --backup=existing s \"\$N\""
# the shortened name is taken: numbered refuses, simple replaces
c numbered-252-taken	"$(n 252) echo old >\"\$N\"; echo prev >\"\$N~\"; \"\$CP\" --backup=numbered s \"\$N\""
c existing-251-bak-taken "$(n 251) echo old >\"\$N\"; echo prev >\"\$N~\"; \"\$CP\" --backup=existing --suffix=.bak s \"\$N\""
c numbered-255-cut-taken "$(n 255) echo old >\"\$N\"; echo prev >\"\${N%x}~\"; \"\$CP\" --backup=numbered s \"\$N\""
# a name as long as a backup already there is kept, though it is 255
# bytes (smartcp made NAME~ of these before issue 38)
c numbered-2-of-251	"$(n 251) echo old >\"\$N\"; echo 1 >\"\$N.~1~\"; \"\$CP\" --backup=numbered s \"\$N\""
c existing-2-of-251	"$(n 251) echo old >\"\$N\"; echo 1 >\"\$N.~1~\"; \"\$CP\" --backup=existing s \"\$N\""
# only an N of digits without a leading zero counts, and as text (before,
# f.~05~ gave f.~6~, f.~-1~ f.~0~ and a 20-digit N f.~0~)
i=0
for b in 'f.~05~' 'f.~-1~' 'f.~+4~' 'f.~ 3~' 'f.~0~' 'f.~3~x' \
	 'f.~99999999999999999999~'; do
	c "numbered-after-$((i += 1))" "echo old >f; echo x >'$b'; \"\$CP\" --backup=numbered s f"
done
# a multibyte last name is cut at a byte, as cp cuts it
c numbered-multibyte	'N=$(printf "x%.0s" {1..248})ééé; echo old >"$N"; "$CP" --backup=numbered s "$N"'
# into a directory, and in a tree (the name below an operand's directory)
c into-dir		"$(n 252) mkdir d; echo old >\"d/\$N\"; cp s \"\$N\"; \"\$CP\" --backup=numbered \"\$N\" d/"
c tree			"$(n 252) mkdir -p a/b z/a/b; echo new >\"a/b/\$N\"; echo old >\"z/a/b/\$N\"; \"\$CP\" -r --backup=numbered a z/"
c tree-existing-taken	"$(n 252) mkdir -p a z/a; echo new >\"a/\$N\"; echo old >\"z/a/\$N\"; echo 1 >\"z/a/\$N.~1~\"; \"\$CP\" -r --backup=existing a z/"

compat_finish
