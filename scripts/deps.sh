#!/bin/sh
# Checks the build dependencies (Debian package names); installs the missing
# ones when run as root with apt-get, otherwise says exactly what to install.
pkgs="make gcc perl zlib1g-dev libzstd-dev libxxhash-dev libelf-dev libdw-dev libiberty-dev libsqlite3-dev libpq-dev libjansson-dev libpfm4-dev libmicrohttpd-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing:$missing"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing && exit 0
fi
echo "missing build dependencies; install them with:" >&2
echo "  sudo apt-get install$missing" >&2
exit 2
