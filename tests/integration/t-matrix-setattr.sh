#!/bin/bash
# The matrix of issue 27 onto a filesystem that refuses chmod and chown
# (faultfs's setattr=ENOSYS, as fusefat's; no ACLs, as on vfat), for the
# options that copy one file: none of smartcp's own, --explain, --atomic,
# --verify, --if-changed, --sync and -j4, each with -p, -a and neither,
# onto every kind of destination faultfs can hold (not a hard link, not a
# device).  (The trees and --attributes-only:
# t-matrix-setattr-tree-attr.sh.)  GNU cp runs in the same set-up for
# every row; besides the invariants of every fault, those of issue 37: a
# file smartcp and cp both write whole has cp's mode (gnumode), and a
# refused attribute never throws a whole copy away without a word
# (discard; its known failures, issue 37 item 2, are expected ones).
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main setattr 'plain explain atomic verify if-changed sync j-file'
