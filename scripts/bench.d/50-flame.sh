#!/bin/sh
# td-flame throughput against flamegraph.pl and inferno-flamegraph, all
# measured in this run on the same input: td-fold's output of the bench
# corpus (10-fold.sh's, or folded here from the same corpus).
#   FLAME_INPUT=FILE       draw this folded file instead
#   FLAMEGRAPH_DIR=DIR     where flamegraph.pl is (else PATH)
#   INFERNO_FLAMEGRAPH=PATH  inferno-flamegraph binary (else next to $INFERNO, else PATH)
set -u
input=${FLAME_INPUT:-$BENCH_DIR/td-fold-j1.out}
if [ ! -s "$input" ]; then
	corpus=${CORPUS:-/tmp/tdkit-corpus/corpus-200M.txt}
	[ -s "$corpus" ] || corpus=$BENCH_DIR/fold-fallback-corpus.txt
	if [ ! -s "$corpus" ]; then
		echo "td-flame bench: no corpus (run the td-fold part first, or set FLAME_INPUT)"
		exit 0
	fi
	input=$BENCH_DIR/flame-input.folded
	"$BIN/td-fold" -q "$corpus" >"$input"
fi
size=$(stat -c %s "$input")
echo "== td-flame bench: $input ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB, $(wc -l <"$input") stacks), $(nproc) CPUs"
cat "$input" >/dev/null

# run NAME CMD...: wall and CPU seconds, MB/s of folded input (by CPU time:
# the three are single-threaded, and CPU time does not count waiting for a
# core on a busy machine), max RSS; output in $BENCH_DIR/NAME.svg.
# Runs 3 times (once for flamegraph.pl) and keeps the lowest CPU time.
run() {
	name=$1 times=$2
	shift 2
	best=""
	i=0
	while [ $i -lt "$times" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/$name.time" "$@" <"$input" >"$BENCH_DIR/$name.svg" 2>/dev/null
		t=$(awk '{ printf "%.2f %.2f %d", $1, $2 + $3, $4 }' "$BENCH_DIR/$name.time")
		if [ -z "$best" ] || [ "$(echo "$t $best" | awk '{ print ($2 < $5) }')" = 1 ]; then best=$t; fi
		i=$((i + 1))
	done
	set -- $best
	rate=$(awk -v s="$2" -v b="$size" 'BEGIN { printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')
	printf '%-20s %7.2f s wall %7.2f s CPU %8s MB/s %7.1f MiB max RSS\n' "$name" "$1" "$2" "$rate" "$(awk -v k="$3" 'BEGIN{print k/1024}')"
	eval "rate_$(echo "$name" | tr -c 'a-z0-9\n' '_')=$rate"
}

run td-flame 3 "$BIN/td-flame" --hash
fg=""
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/flamegraph.pl" ]; then
	fg=$FLAMEGRAPH_DIR/flamegraph.pl
elif command -v flamegraph.pl >/dev/null 2>&1; then
	fg=$(command -v flamegraph.pl)
fi
if [ -n "$fg" ]; then
	run flamegraph.pl 1 perl "$fg" --hash
	perl -ne 'print "$1\n" while m{<title>(.*?)</title><rect x="([^"]*)"}g' "$BENCH_DIR/flamegraph.pl.svg" | sort >"$BENCH_DIR/flame-fg.titles"
	perl -ne 'print "$1\n" while m{<title>(.*?)</title><rect x="([^"]*)"}g' "$BENCH_DIR/td-flame.svg" | sort >"$BENCH_DIR/flame-td.titles"
	cmp -s "$BENCH_DIR/flame-fg.titles" "$BENCH_DIR/flame-td.titles" &&
		echo "  same $(wc -l <"$BENCH_DIR/flame-td.titles") frames as flamegraph.pl" ||
		echo "  frames DIFFER from flamegraph.pl's"
else
	echo "flamegraph.pl          absent (set FLAMEGRAPH_DIR)"
fi
inf=${INFERNO_FLAMEGRAPH:-}
[ -z "$inf" ] && [ -n "${INFERNO:-}" ] && inf=$(dirname "$INFERNO")/inferno-flamegraph
[ -z "$inf" ] && inf=$(command -v inferno-flamegraph 2>/dev/null || true)
if [ -n "$inf" ] && [ -x "$inf" ]; then
	run inferno-flamegraph 3 "$inf" --hash
else
	echo "inferno-flamegraph     absent (set INFERNO_FLAMEGRAPH or INFERNO)"
fi
echo "ratios:"
[ -n "${rate_flamegraph_pl:-}" ] && awk -v a="$rate_td_flame" -v p="$rate_flamegraph_pl" \
	'BEGIN { printf "  td-flame / flamegraph.pl = %.1fx (target 10x)\n", a/p }'
[ -n "${rate_inferno_flamegraph:-}" ] && awk -v a="$rate_td_flame" -v i="$rate_inferno_flamegraph" \
	'BEGIN { printf "  td-flame / inferno-flamegraph = %.2fx (target > 1)\n", a/i }'
exit 0
