#!/bin/bash
# The matrix of issue 27 under EIO, for -j4 -r on a tree and
# --attributes-only, each also with --atomic, and each with -p, -a and
# neither, onto every kind of destination.  (The options that copy one
# file: t-matrix-eio.sh.)
# The fault: the sources are on faultfs (tests/faultfs), and every read
# of a single-file source, and of two files of the tree, fails with EIO
# from byte 100003 on, whatever the destination.
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main eio 'attributes-only atomic+attributes-only j4-tree j4-tree+atomic'
