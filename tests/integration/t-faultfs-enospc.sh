#!/bin/bash
# ENOSPC on every road, from a file that may hold only 1500007 bytes and
# from a full faultfs (capacity=), each without and with --atomic: exit 1,
# "error writing 'DST': No space left on device", without --atomic the
# destination absent or a differing prefix, with --atomic the old
# destination byte for byte (same inode) and no temporary left.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup
ff_all_roads enospc_file enospc_file_atomic enospc_fs enospc_fs_atomic
