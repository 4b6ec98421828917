#!/bin/sh
# td-flame: the folded stacks of the capture recorded for this project as an
# interactive flame graph, and the gzip -1 / gzip -9 change as a differential one.
out=${DEMO_DIR:-/tmp/tdkit-demo}
mkdir -p "$out" || exit 1
f=testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data
echo "== td-flame: td-fold perf.data | td-flame > cpu.svg"
"$BIN/td-fold" "$f" | "$BIN/td-flame" --title "gzip and perl, cpu-clock -g" >"$out/cpu.svg" || exit 1
echo "   wrote $out/cpu.svg ($(grep -c '<g >' "$out/cpu.svg") frames): open it in a browser; click to zoom, Ctrl-F to search"
d=testdata/diff
"$BIN/td-diff" --folded "$d/local-kvm_gzip-1_cpu-clock-g.folded" "$d/local-kvm_gzip-9_cpu-clock-g.folded" |
	"$BIN/td-flame" --title "gzip -1 -> gzip -9 (red: grew)" >"$out/diff.svg" || exit 1
echo "   wrote $out/diff.svg (differential: widths are gzip -9, red grew, blue shrank)"
"$BIN/td-fold" "$f" | "$BIN/td-flame" --format speedscope >"$out/cpu.speedscope.json" || exit 1
echo "   wrote $out/cpu.speedscope.json (open at https://www.speedscope.app or with speedscope's CLI)"
exit 0
