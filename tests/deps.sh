#!/bin/sh
# Install every Debian package amber's build, tests and benchmarks need.
# Does nothing (and needs no network) when all of them are present.
set -e
PKGS="build-essential pkg-config libelf-dev libdw-dev libtraceevent-dev
libtracefs-dev libnuma-dev libpfm4-dev libzstd-dev libxxhash-dev libcmocka-dev
clang libclang-rt-14-dev zstd linux-perf libxml2-utils time hyperfine python3 procps sqlite3
python3-zstandard python3-xxhash
libdebuginfod-dev debuginfod libc6-dbg
chromium chromium-driver
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libiberty-dev golang-go nodejs"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = "installed" ] || missing="$missing $p"
done
# npm (the speedscope package for the export tests): Debian's package, unless
# the nodejs installed already brings its own npm.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: error: need root to run apt-get (missing:$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
