#!/bin/bash
# The matrix of issue 27 under SIGINT part way, for -j4 -r on a tree and
# --attributes-only, each also with --atomic, and each with -p, -a and
# neither, onto every kind of destination.  (The options that copy one
# file: t-matrix-sigint.sh.)
# The fault: the fault shim (tests/shim) sends SIGINT to the copier from
# inside the read (or copy_file_range, or splice) of a source that
# reaches byte 65536, so the copy is interrupted part way, at the same
# point in every run, with no race.
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main sigint 'attributes-only atomic+attributes-only j4-tree j4-tree+atomic'
