#!/bin/sh
# make bench: runs every tool's benchmark part (scripts/bench.d/*.sh).
# Peers are found through the environment or PATH (FLAMEGRAPH_DIR, INFERNO,
# ...); a missing peer is reported "absent", never built from here.
BIN=$1
SHARED=$2
BENCH_DIR=${BENCH_DIR:-/tmp/tdkit-bench}
export BIN SHARED BENCH_DIR
mkdir -p "$BENCH_DIR"
cd "$(dirname "$0")/.." || exit 2
for part in scripts/bench.d/*.sh; do
	[ -f "$part" ] || continue
	sh "$part" || echo "bench part $part failed"
done
