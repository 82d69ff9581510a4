#!/bin/bash
# The matrix of issue 27 onto a filesystem that refuses chmod and chown
# (faultfs's setattr=ENOSYS), for -j4 -r on a tree and
# --attributes-only, with and without --atomic, each with -p, -a and
# neither, onto every kind of destination faultfs can hold.  (The other
# rows: t-matrix-setattr.sh, which says what is checked.)
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main setattr 'attributes-only atomic+attributes-only j4-tree j4-tree+atomic'
