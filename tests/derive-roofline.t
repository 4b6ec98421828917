#!/usr/bin/env bash
# td-derive's roofline: FLOPs and DRAM traffic from each vendor's events
# (analysis/roofline.c), GFLOP/s, GB/s and arithmetic intensity, and with
# --peaks where the point sits under the roofs; --svg draws it. No published
# capture holds both FP and memory-traffic events in one perf run (see
# testdata/PROVENANCE.md), so the captures are synthetic, their numbers
# worked out by hand below.
. "$(dirname "$0")/lib.sh"
R=$TD_ROOT/testdata/roofline
INTEL=$R/roofline-synthetic-intel-imc.csv
ARM=$R/roofline-synthetic-arm-llc-proxy.csv
PEAKS=$R/peaks-synthetic.txt

# Intel: FLOPs 4e9 x1 + 2e9 x4 (256-bit double) + 0.5e9 x16 (512-bit single)
# = 20e9 in 2 s; DRAM (2000 + 1000) MiB = 3,145,728,000 B
"$TD_BIN/td-derive" -q --csv --peaks "$PEAKS" "$INTEL" >"$T_TMP/i.csv"
while IFS=, read -r name value unit verdict; do
	grep -q "^,all,,$name,$value,$unit,$verdict," "$T_TMP/i.csv"; ok $? "Intel synthetic: $name $value $unit $verdict"
done <<'X'
gflops,10.000,GFLOP/s,
dram_gbs,1.573,GB/s,
arithmetic_intensity,6.358,FLOP/B,
roof_attainable_gflops,63.578,GFLOP/s,
roof_share,15.729,%,memory-bound
X
printf 'peak_gflops 20\npeak_gbs 100\n' >"$T_TMP/fast-memory"
"$TD_BIN/td-derive" -q --csv --peaks "$T_TMP/fast-memory" "$INTEL" >"$T_TMP/c.csv"
grep -q '^,all,,roof_share,50.000,%,compute-bound,' "$T_TMP/c.csv" && grep -q '^,all,,roof_attainable_gflops,20.000,' "$T_TMP/c.csv"
ok $? "ridge 0.2 FLOP/B left of 6.358: compute-bound, 10 of 20 GFLOP/s = 50 %"
"$TD_BIN/td-derive" -q --csv "$INTEL" >"$T_TMP/n.csv"
grep -q ',gflops,10.000,' "$T_TMP/n.csv" && ! grep -q 'roof_' "$T_TMP/n.csv"; ok $? "without --peaks: the point, no roof rows"
# Arm: 4e9 fixed + 1e9 scalable (128-bit) ops in 1 s; 25e6 ll_cache_miss_rd x 64 B = 1.6e9 B, a proxy
"$TD_BIN/td-derive" -q --csv --peaks "$PEAKS" "$ARM" >"$T_TMP/a.csv"
grep -q '^,all,,gflops,5.000,' "$T_TMP/a.csv" && grep -q '^,all,,llc_miss_gbs,1.600,GB/s,.*proxy' "$T_TMP/a.csv" &&
	grep -q '^,all,,arithmetic_intensity,3.125,' "$T_TMP/a.csv" && grep -q '^,all,,roof_share,16.000,%,memory-bound' "$T_TMP/a.csv"
ok $? "Arm synthetic: 5 GFLOP/s, 1.6 GB/s (last-level misses, said to be a proxy), 3.125 FLOP/B, 16 % of the roof"
! grep -q 'dram_gbs' "$T_TMP/a.csv"; ok $? "a proxy is not called DRAM"
# a capture without FP events has no roofline rows (the shared captures: none)
cap=$(ls "$TD_ROOT"/testdata/stat/local-kvm_swevents_*.csv | head -1)
! "$TD_BIN/td-derive" -q --csv --peaks "$PEAKS" "$cap" | grep -q 'gflops\|roof_'; ok $? "no FP events: no roofline rows"

# --svg without -I: the roofline, byte-stable, rendered non-blank
"$TD_BIN/td-derive" -q --peaks "$PEAKS" --svg "$T_TMP/r1.svg" "$INTEL" >/dev/null
"$TD_BIN/td-derive" -q --peaks "$PEAKS" --svg "$T_TMP/r2.svg" "$INTEL" >/dev/null
cmp -s "$T_TMP/r1.svg" "$T_TMP/r2.svg"; ok $? "--svg roofline: the same bytes twice"
grep -q '<circle' "$T_TMP/r1.svg" && grep -q 'peak 100 GFLOP/s' "$T_TMP/r1.svg" && grep -q 'DRAM 10 GB/s' "$T_TMP/r1.svg" &&
	grep -q 'l3 40 GB/s' "$T_TMP/r1.svg" && grep -q 'arithmetic intensity' "$T_TMP/r1.svg" &&
	grep -q '6.358 FLOP/B, 10.000 GFLOP/s (15.7 % of the memory roof)' "$T_TMP/r1.svg"
ok $? "--svg roofline: the point, the compute roof, the DRAM and l3 roofs, labelled axes"
if command -v rsvg-convert >/dev/null; then
	printf '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="560"><rect width="800" height="560" fill="#ffffff"/></svg>' >"$T_TMP/blank.svg"
	rsvg-convert -o "$T_TMP/r.png" "$T_TMP/r1.svg" && rsvg-convert -o "$T_TMP/blank.png" "$T_TMP/blank.svg"
	[ "$(stat -c %s "$T_TMP/r.png")" -gt $(( 4 * $(stat -c %s "$T_TMP/blank.png") )) ]
	ok $? "--svg roofline renders (rsvg-convert), not blank: $(stat -c %s "$T_TMP/r.png") B of PNG vs $(stat -c %s "$T_TMP/blank.png") B blank"
else
	skip "rsvg-convert absent: the roofline not rendered"
fi
"$TD_BIN/td-derive" -q --svg "$T_TMP/r3.svg" "$INTEL" >/dev/null
grep -q '<circle' "$T_TMP/r3.svg" && ! grep -q 'peak ' "$T_TMP/r3.svg"; ok $? "--svg without --peaks: the point and axes, no roof"

# bad --peaks files: named with the line, exit 2, nothing invented
for kind in missing empty prose binary crlf truncated huge unknown negative; do
	f=$T_TMP/p-$kind
	case $kind in
	missing) f=$T_TMP/none ;;
	empty) : >"$f" ;;
	prose) printf 'the peaks of this machine\nare high\n' >"$f" ;;
	binary) printf 'peak_gflops 10\n\0\1\2' >"$f" ;;
	crlf) sed 's/$/\r/' "$PEAKS" >"$f" ;;
	truncated) printf 'peak_gflops 100\npeak_g' >"$f" ;;
	huge) { printf 'peak_gflops 100\npeak_gbs 10\n'; head -c 100000 /dev/zero | tr '\0' 'x'; echo; } >"$f" ;;
	unknown) printf 'peak_gflops 100\npeak_gbs 10\npeak_watts 200\n' >"$f" ;;
	negative) printf 'peak_gflops -100\npeak_gbs 10\n' >"$f" ;;
	esac
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --csv --peaks "$f" "$INTEL"
	case $kind in
	crlf) [ $RC -eq 0 ] && grep -q 'roof_share,15.729' "$T_TMP/out" ;;
	missing|empty) [ $RC -eq 2 ] && grep -q "td-derive: $f" "$T_TMP/err" ;;
	*) [ $RC -eq 2 ] && grep -q "td-derive: $f:[0-9]*: \|td-derive: $f: needs both" "$T_TMP/err" && [ ! -s "$T_TMP/out" ] ;;
	esac
	ok $? "--peaks $kind file: exit $RC, said with its name"
done
done_testing
