#!/bin/sh
# td-fold reading perf.data against the perf script pipes it replaces, on
# a real recording made here at bench time (kept in $BENCH_DIR): td-fold
# FILE vs perf script | td-fold vs perf script | inferno-collapse-perf
# (when $INFERNO or inferno-collapse-perf is on PATH). Target: 10x the pipe.
set -u
if ! command -v perf >/dev/null; then
	echo "== td-fold perf.data bench: perf absent; skipped"
	exit 0
fi
data=$BENCH_DIR/fold-bench.perf.data
if [ ! -s "$data" ]; then
	# system-wide callchains while gzip and find run: grows ~2-5 MB/s here; >= 100 MB
	perf record -q -a -g -F 10000 -o "$data.tmp" -- sh -c \
		'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do seq 1 20000000 | gzip -1 >/dev/null & find / -xdev >/dev/null 2>&1 & wait; done' \
		>/dev/null 2>&1
	mv "$data.tmp" "$data"
fi
size=$(stat -c %s "$data")
echo "== td-fold perf.data bench: $data ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB recorded here)"
cat "$data" >/dev/null
t() { /usr/bin/time -f "%e %M" -o "$BENCH_DIR/fpd.time" "$@" >/dev/null 2>&1; read -r s k <"$BENCH_DIR/fpd.time"; }
t "$BIN/td-fold" "$data"; d=$s; dk=$k
t sh -c "perf script -i '$data' 2>/dev/null | '$BIN/td-fold'"; p=$s
inferno=${INFERNO:-$(command -v inferno-collapse-perf || true)}
i=0
[ -n "$inferno" ] && { t sh -c "perf script -i '$data' 2>/dev/null | '$inferno'"; i=$s; }
awk -v b="$size" -v d="$d" -v k="$dk" -v p="$p" -v i="$i" 'BEGIN {
	printf "td-fold perf.data                 %6.2f s %7.0f MB/s  %.1f MiB max RSS\n", d, (d > 0 ? b / d / 1e6 : 0), k / 1024
	printf "perf script | td-fold             %6.2f s   td-fold perf.data is %.1fx faster (target 10x)\n", p, (d > 0 ? p / d : 0)
	if (i > 0) printf "perf script | inferno-collapse   %6.2f s   td-fold perf.data is %.1fx faster\n", i, i / d
	else print "perf script | inferno-collapse-perf: not found (set INFERNO=path); skipped" }'
exit 0
