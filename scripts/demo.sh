#!/bin/sh
# make demo: runs every tool's demo part (scripts/demo.d/*.sh) on the real
# captures in testdata/, and on ../shared when it is there.
BIN=$1
SHARED=$2
export BIN SHARED
cd "$(dirname "$0")/.." || exit 2
status=0
for part in scripts/demo.d/*.sh; do
	[ -f "$part" ] || continue
	sh "$part" || status=1
done
exit $status
