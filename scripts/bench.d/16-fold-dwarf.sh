#!/bin/sh
# td-fold unwinding a --call-graph dwarf recording against perf script alone
# on the same file (perf unwinds with libunwind and asks addr2line for the
# inline frames). The recording is made at bench time in $BENCH_DIR: gcc
# compiling four of tdkit's files (cc1, as and the driver, no frame
# pointers). Medians of BENCH_RUNS (3) runs, taken in turn. perf script
# --no-inline (no addr2line, fewer frames than td-fold gives) is shown
# beside it for scale.
# Target: td-fold >= 5x perf script alone.
#   FOLD_DWARF=FILE     use this dwarf recording instead
set -u
if ! command -v perf >/dev/null; then
	echo "== td-fold dwarf bench: perf absent; skipped"
	exit 0
fi
data=${FOLD_DWARF:-$BENCH_DIR/fold-dwarf.perf.data}
if [ ! -s "$data" ]; then
	# shellcheck disable=SC2016
	perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$data.tmp" -- sh -c \
		'for f in common/intern.c common/input.c common/radix.c common/queue.c; do
			cc -std=c11 -D_GNU_SOURCE -I. -O2 -g -c "$f" -o /dev/null; done' >/dev/null 2>&1
	mv "$data.tmp" "$data"
fi
size=$(stat -c %s "$data")
echo "== td-fold dwarf bench: $data ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB, --call-graph dwarf)"
cat "$data" >/dev/null
runs=${BENCH_RUNS:-3}
. scripts/bench-lib.sh
# t NAME CMD...: one run of CMD, logged in $BENCH_DIR/fd.NAME
t() {
	name=$1
	shift
	timed "$BENCH_DIR/fd.$name" "$@" >/dev/null 2>&1
}
rm -f "$BENCH_DIR"/fd.j1 "$BENCH_DIR"/fd.jn "$BENCH_DIR"/fd.perf "$BENCH_DIR"/fd.noinl
i=0
while [ "$i" -lt "$runs" ]; do
	t j1 "$BIN/td-fold" -j1 "$data"
	t jn "$BIN/td-fold" "$data"
	t perf perf script -i "$data"
	t noinl perf script --no-inline -i "$data"
	i=$((i + 1))
done
# med NAME FIELD: the median of a column
med() { logged_median "$BENCH_DIR/fd.$1" "$2"; }
awk -v j1w="$(med j1 1)" -v j1c="$(med j1 2)" -v j1k="$(med j1 3)" -v jnw="$(med jn 1)" -v jnc="$(med jn 2)" \
    -v jnk="$(med jn 3)"  -v pw="$(med perf 1)" -v pc="$(med perf 2)" -v nw="$(med noinl 1)" -v nc="$(med noinl 2)" -v runs="$runs" -v cpus="$(nproc)" 'BEGIN {
	printf "td-fold -j1 FILE        %7.2f s wall %7.2f s CPU  %.1f MiB max RSS  (median of %d)\n", j1w, j1c, j1k / 1024, runs
	printf "td-fold FILE (-j%d)      %7.2f s wall %7.2f s CPU  %.1f MiB max RSS\n", cpus, jnw, jnc, jnk / 1024
	printf "perf script -i FILE     %7.2f s wall %7.2f s CPU\n", pw, pc
	printf "perf script --no-inline %7.2f s wall %7.2f s CPU  (no inline frames: %.1fx td-fold by wall, %.1fx by CPU)\n",
		nw, nc, (jnw > 0 ? nw / jnw : 0), (jnc > 0 ? nc / jnc : 0)
	printf "td-fold is %.1fx faster than perf script alone by wall time (target 5x), %.1fx by CPU; -j1: %.1fx, %.1fx\n",
		(jnw > 0 ? pw / jnw : 0), (jnc > 0 ? pc / jnc : 0), (j1w > 0 ? pw / j1w : 0), (j1c > 0 ? pc / j1c : 0) }'
exit 0
