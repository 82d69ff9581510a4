#!/bin/bash
# The matrix of issue 27 under EIO, for the options that copy one file:
# none of smartcp's own, --explain, --atomic, --verify, --if-changed,
# --sync and -j4, each with -p, -a and neither, onto every kind of
# destination.  (The trees and --attributes-only:
# t-matrix-eio-tree-attr.sh.)
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

mx_main eio 'plain explain atomic verify if-changed sync j-file'
