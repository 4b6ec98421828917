#!/bin/sh
# td-fold throughput against stackcollapse-perf.pl and inferno-collapse-perf,
# all measured in this run on the same real corpora.
#   CORPUS="FILE ..."      the perf script texts to measure, each on its own
#                          (default: those of ../shared/bench/make-corpus.sh found in
#                          /tmp/tdkit-corpus, else a fallback of real captures
#                          concatenated, built here)
#   BENCH_RUNS=N           runs of each command; the median is reported (default 3)
#   FLAMEGRAPH_DIR=DIR     where stackcollapse-perf.pl is (else PATH, else
#                          /tmp/peers/FlameGraph as ../shared/bench/peers builds it)
#   INFERNO=PATH           inferno-collapse-perf binary (else PATH, else the
#                          /tmp/peers/inferno-build one ../shared/bench/peers builds)
# Wall time, CPU time (user + system: the machine may be shared) and max RSS,
# each the median of BENCH_RUNS runs.
set -u
runs=${BENCH_RUNS:-3}

fallback_corpus() {
	corpus=$BENCH_DIR/fold-fallback-corpus.txt
	if [ ! -s "$corpus" ]; then
		echo "td-fold bench: no recorded corpus (run ../shared/bench/make-corpus.sh for the 50 and 200 MB ones);" >&2
		echo "  building a fallback by concatenating real captures at sample boundaries (whole files)" >&2
		: >"$corpus"
		src_ex=$SHARED/compat/flamegraph/example-perf-stacks.txt.gz
		while [ "$(stat -c %s "$corpus")" -lt 200000000 ]; do
			zcat testdata/fold/*.script.txt.gz >>"$corpus"
			[ -f "$src_ex" ] && { zcat "$src_ex"; echo; } >>"$corpus"
		done
	fi
	echo "$corpus"
}

corpora=${CORPUS:-}
if [ -z "$corpora" ]; then
	for f in /tmp/tdkit-corpus/corpus-50M.txt /tmp/tdkit-corpus/corpus-200M.txt; do
		[ -s "$f" ] && corpora="$corpora $f"
	done
	[ -n "$corpora" ] || corpora=$(fallback_corpus)
fi

fg=""
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	fg=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
elif command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	fg=$(command -v stackcollapse-perf.pl)
elif [ -f /tmp/peers/FlameGraph/stackcollapse-perf.pl ]; then
	fg=/tmp/peers/FlameGraph/stackcollapse-perf.pl
fi
inf=${INFERNO:-$(command -v inferno-collapse-perf 2>/dev/null || echo /tmp/peers/inferno-build/target/release/inferno-collapse-perf)}
[ -x "$inf" ] || inf=""

. scripts/bench-lib.sh

# run NAME CMD...: the median wall seconds, MB/s, CPU seconds and max RSS of
# $runs runs with the corpus on standard input; output in $BENCH_DIR/NAME.out
run() {
	name=$1
	shift
	rm -f "$BENCH_DIR/$name.times"
	i=0
	while [ "$i" -lt "$runs" ]; do
		timed "$BENCH_DIR/$name.times" "$@" <"$corpus" >"$BENCH_DIR/$name.out" 2>/dev/null
		i=$((i + 1))
	done
	secs=$(logged_median "$BENCH_DIR/$name.times" 1)
	cpu=$(logged_median "$BENCH_DIR/$name.times" 2)
	rss=$(logged_median "$BENCH_DIR/$name.times" 3)
	rate=$(awk -v s="$secs" -v b="$size" 'BEGIN { printf "%.0f", (s > 0 ? b / s / 1e6 : 0) }')
	printf '%-34s %8.2f s %8s MB/s %7.2f s CPU %8.1f MiB max RSS\n' "$name" "$secs" "$rate" "$cpu" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
	key=$(echo "$name" | tr -c 'a-z0-9\n' '_')
	eval "rate_$key=$rate cpu_$key=$cpu"
}

bench_corpus() {
	corpus=$1
	size=$(stat -c %s "$corpus")
	mb=$(echo "$size" | awk '{ printf "%.1f", $1 / 1e6 }')
	echo "== td-fold bench: $corpus ($mb MB), $(nproc) CPUs, median of $runs runs"
	cat "$corpus" >/dev/null   # warm the page cache
	unset rate_stackcollapse_perf_pl rate_inferno_n1 cpu_inferno_n1 2>/dev/null

	run td-fold-j1 "$BIN/td-fold" -q -j 1
	run td-fold-jall "$BIN/td-fold" -q
	out_bytes=$(stat -c %s "$BENCH_DIR/td-fold-j1.out")
	cmp -s "$BENCH_DIR/td-fold-j1.out" "$BENCH_DIR/td-fold-jall.out" && echo "  -j1 and -j$(nproc) outputs identical" || echo "  -j1 and -j$(nproc) outputs DIFFER"
	echo "  output: $(awk -v b="$out_bytes" 'BEGIN{printf "%.1f", b/1048576}') MiB (RSS target: 32 MiB + output)"

	if [ -n "$fg" ]; then
		run stackcollapse-perf.pl perl "$fg"
		if cmp -s "$BENCH_DIR/td-fold-j1.out" "$BENCH_DIR/stackcollapse-perf.pl.out"; then
			echo "  td-fold output identical to stackcollapse-perf.pl"
		else
			# where the script loses or garbles samples td-fold keeps them;
			# --perl-compat gives the script's bytes there too (td-fold(1))
			"$BIN/td-fold" -q --perl-compat <"$corpus" >"$BENCH_DIR/td-fold-compat.out" 2>/dev/null
			if cmp -s "$BENCH_DIR/td-fold-compat.out" "$BENCH_DIR/stackcollapse-perf.pl.out"; then
				echo "  td-fold keeps samples stackcollapse-perf.pl loses here; td-fold --perl-compat identical to it"
			else
				echo "  td-fold --perl-compat output DIFFERS from stackcollapse-perf.pl (check the corpus ends with a blank line)"
			fi
		fi
	else
		echo "stackcollapse-perf.pl              absent (set FLAMEGRAPH_DIR)"
	fi

	if [ -n "$inf" ]; then
		run inferno-n1 "$inf" -n 1
		run inferno-default "$inf"
	else
		echo "inferno-collapse-perf              absent (set INFERNO)"
	fi

	echo "ratios:"
	[ -n "${rate_stackcollapse_perf_pl:-}" ] && awk -v a="$rate_td_fold_j1" -v b="$rate_td_fold_jall" -v p="$rate_stackcollapse_perf_pl" \
		'BEGIN { printf "  td-fold -j1 / stackcollapse-perf.pl = %.1fx, td-fold -jall / stackcollapse-perf.pl = %.1fx\n", a/p, b/p }'
	[ -n "${rate_inferno_n1:-}" ] && awk -v a="$rate_td_fold_j1" -v b="$rate_td_fold_jall" -v i1="$rate_inferno_n1" -v id="$rate_inferno_default" \
		'BEGIN { printf "  td-fold -j1 / inferno -n 1 = %.1fx (target 5x), td-fold -jall / inferno default = %.1fx (target 5x)\n", a/i1, b/id }'
	[ -n "${cpu_inferno_n1:-}" ] && awk -v a="$cpu_td_fold_j1" -v b="$cpu_td_fold_jall" -v i1="$cpu_inferno_n1" -v id="$cpu_inferno_default" \
		'BEGIN { if (a > 0 && b > 0) printf "  by CPU time: inferno -n 1 / td-fold -j1 = %.1fx, inferno default / td-fold -jall = %.1fx\n", i1/a, id/b }'
	awk -v a="$rate_td_fold_j1" -v b="$rate_td_fold_jall" \
		'BEGIN { printf "  td-fold -jall / td-fold -j1 = %.2fx (the threaded path must not be slower)\n", b/a }'
}

for c in $corpora; do
	if [ -s "$c" ]; then
		bench_corpus "$c"
	else
		echo "== td-fold bench: $c is missing or empty; skipped"
	fi
done
exit 0
