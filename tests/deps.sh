#!/bin/bash
# Installs the packages smartcp needs to build and test (Debian 12), when
# run as root and something is missing.  Sourced by quickstart.sh and
# run-all.sh; safe to run twice.
SMARTCP_BUILD_DEPS="autoconf automake libtool autopoint gettext pkg-config make gcc
 libmount-dev libblkid-dev libxxhash-dev libattr1-dev libacl1-dev check"
SMARTCP_TEST_DEPS="btrfs-progs xfsprogs e2fsprogs util-linux strace attr acl
 python3 jq valgrind man-db groff-base kmod abigail-tools
 libfuse3-dev fuse3 clang libclang-rt-14-dev libtsan2"

smartcp_install_deps() {
	local want missing=() p
	want="$SMARTCP_BUILD_DEPS ${1:-}"
	for p in $want; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "missing packages: ${missing[*]} (run as root to install them)" >&2
		return 1
	fi
	echo "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
