#!/bin/sh
# td-fold reading perf.data against the perf script pipes it replaces, on
# real recordings made here at bench time (kept in $BENCH_DIR): td-fold
# FILE vs perf script | td-fold vs perf script | inferno-collapse-perf
# (when $INFERNO, inferno-collapse-perf on PATH, or the /tmp/peers/inferno-build
# one ../shared/bench/peers builds is there).
#  - compile: system-wide callchains (-a -g, 4 kHz) for 190 s of a Linux
#    6.1 defconfig build (make -j2 vmlinux) when Debian's linux-source-6.1
#    is installed (../shared/bench/make-corpus.sh installs it), else while
#    gcc compiles tdkit's C files two at a time: 100+ MB. Issue 23's
#    target: td-fold FILE >= 20x the inferno pipe.
#  - gzip-find: system-wide callchains (10 kHz) while gzip and find run;
#    few symbols per sample, so perf script itself is cheap here.
#   FOLD_PERFDATA=FILE     measure this recording only (e.g. a 100+ MB perf
#                          record -a -g of another compile)
set -u
if ! command -v perf >/dev/null; then
	echo "== td-fold perf.data bench: perf absent; skipped"
	exit 0
fi
. scripts/bench-lib.sh
runs=${BENCH_RUNS:-3}

# record FILE FREQ CMD: perf record -a -g of CMD into FILE, unless FILE is there
record() {
	[ -s "$1" ] && return
	perf record -q -a -g -F "$2" -o "$1.tmp" -- sh -c "$3" >/dev/null 2>&1
	mv "$1.tmp" "$1"
}

ksrc=/usr/src/linux-source-6.1.tar.xz
kbuild_loop="cd '$BENCH_DIR/kbuild/linux-source-6.1' && timeout -s INT 190 make -j2 vmlinux"
compile_loop='end=$(($(date +%s) + 190))
while [ "$(date +%s)" -lt "$end" ]; do
	ls common/*.c parsers/*.c analysis/*.c | xargs -P2 -n1 sh -c '"'"'cc -std=c11 -D_GNU_SOURCE -I. -I/usr/include/postgresql -O2 -g -c "$0" -o /dev/null'"'"'
done'
gzip_find_loop='for i in 1 2 3 4 5 6 7 8 9 10 11 12; do seq 1 20000000 | gzip -1 >/dev/null & find / -xdev >/dev/null 2>&1 & wait; done'

# t CMD...: the median of BENCH_RUNS runs (default 3) of wall seconds s, CPU
# seconds c (user + system, children included) and max RSS k
t() {
	rm -f "$BENCH_DIR/fpd.times"
	n=0
	while [ "$n" -lt "$runs" ]; do
		timed "$BENCH_DIR/fpd.times" "$@" >/dev/null 2>&1
		n=$((n + 1))
	done
	s=$(logged_median "$BENCH_DIR/fpd.times" 1)
	c=$(logged_median "$BENCH_DIR/fpd.times" 2)
	k=$(logged_median "$BENCH_DIR/fpd.times" 3)
}

# bench_file FILE WHAT TARGET
bench_file() {
	data=$1
	size=$(stat -c %s "$data")
	echo "== td-fold perf.data bench: $data ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB, $2), median of $runs runs"
	cat "$data" >/dev/null
	t "$BIN/td-fold" -j1 "$data"; d1=$s; dc1=$c; dk1=$k
	t "$BIN/td-fold" "$data"; d=$s; dc=$c; dk=$k
	t sh -c "perf script -i '$data' 2>/dev/null | '$BIN/td-fold'"; p=$s; pc=$c
	inferno=${INFERNO:-$(command -v inferno-collapse-perf 2>/dev/null || echo /tmp/peers/inferno-build/target/release/inferno-collapse-perf)}
	i=0 ic=0
	[ -x "$inferno" ] && { t sh -c "perf script -i '$data' 2>/dev/null | '$inferno'"; i=$s; ic=$c; }
	awk -v b="$size" -v d1="$d1" -v dc1="$dc1" -v k1="$dk1" -v d="$d" -v dc="$dc" -v k="$dk" -v p="$p" -v pc="$pc" -v i="$i" -v ic="$ic" -v target="$3" 'BEGIN {
		printf "td-fold -j1 perf.data             %6.2f s %7.0f MB/s %6.2f s CPU  %.1f MiB max RSS\n", d1, (d1 > 0 ? b / d1 / 1e6 : 0), dc1, k1 / 1024
		printf "td-fold perf.data                 %6.2f s %7.0f MB/s %6.2f s CPU  %.1f MiB max RSS\n", d, (d > 0 ? b / d / 1e6 : 0), dc, k / 1024
		printf "perf script | td-fold             %6.2f s          %6.2f s CPU  td-fold perf.data is %.1fx faster\n", p, pc, (d > 0 ? p / d : 0)
		if (i > 0) printf "perf script | inferno-collapse   %6.2f s          %6.2f s CPU  td-fold perf.data is %.1fx faster%s, %.1fx by CPU time\n", i, ic, i / d, target, (dc > 0 ? ic / dc : 0)
		else print "perf script | inferno-collapse-perf: not found (set INFERNO=path); skipped" }'
}

if [ -n "${FOLD_PERFDATA:-}" ]; then
	bench_file "$FOLD_PERFDATA" "given" " (target 20x on a compile)"
	exit 0
fi
if [ ! -s "$BENCH_DIR/fold-compile.perf.data" ] && [ -f "$ksrc" ]; then
	rm -rf "$BENCH_DIR/kbuild"
	mkdir -p "$BENCH_DIR/kbuild"
	tar -xf "$ksrc" -C "$BENCH_DIR/kbuild" && make -C "$BENCH_DIR/kbuild/linux-source-6.1" defconfig >/dev/null 2>&1 &&
		record "$BENCH_DIR/fold-compile.perf.data" 4000 "$kbuild_loop"
	rm -rf "$BENCH_DIR/kbuild"
fi
record "$BENCH_DIR/fold-compile.perf.data" 4000 "$compile_loop"
bench_file "$BENCH_DIR/fold-compile.perf.data" "perf record -a -g of a compile, made here" " (target 20x)"
record "$BENCH_DIR/fold-bench.perf.data" 10000 "$gzip_find_loop"
bench_file "$BENCH_DIR/fold-bench.perf.data" "perf record -a -g of gzip and find, made here" ""
exit 0
