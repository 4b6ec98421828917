#!/bin/sh
# td-fold on the capture recorded for this project, then on ../shared.
echo "== td-fold: perf script callchains -> folded stacks (top 5 by count)"
f=testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.script.txt.gz
"$BIN/td-fold" "$f" | sort -k2 -nr -t' ' | awk '{ n = $NF; $NF = ""; s = $0; if (length(s) > 110) s = "..." substr(s, length(s) - 106); printf "%12s  %s\n", n, s }' | head -5
echo "   ($("$BIN/td-fold" "$f" | wc -l) distinct stacks from $f)"
ex=$SHARED/compat/flamegraph/example-perf-stacks.txt.gz
if [ -f "$ex" ]; then
	echo "== td-fold on ../shared $ex: identical to stackcollapse-perf.pl?"
	if "$BIN/td-fold" "$ex" | cmp -s - "$SHARED/compat/flamegraph/expected-current/example-perf-stacks-collapsed.txt"; then
		echo "   yes, byte for byte"
	else
		echo "   NO: outputs differ"
	fi
fi
exit 0
