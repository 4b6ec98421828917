#!/usr/bin/env bash
# The perf.data reader through td-info: every shared file (perf 3.3 to 6.12,
# x86, i686, armv7, arm64, hybrid, pipe mode) and the recordings made here
# (pipe mode, zstd -z, two events), checked against perf itself at test
# time: sample counts per event, and per sample pid, tid, time, period, ip
# and the number of callchain frames. Synthetic files in both byte orders
# and both modes; truncated, lying and foreign files give "file: offset N:"
# messages and exit 2, with what came before still counted.
. "$(dirname "$0")/lib.sh"
INFO=$TD_BIN/td-info
files=("$TD_ROOT"/testdata/perfdata/*.perf.data "$TD_ROOT"/testdata/fold/*.perf.data)
have_shared && files+=("$TD_SHARED"/testdata/perfdata/*.perf.data)
have_shared || skip "../shared absent: only the recordings made here are read"
have_perf=0
command -v perf >/dev/null && have_perf=1

# per sample: "pid tid time period ip" from our dump, sorted (perf script sorts by time)
ours_samples() {
	"$INFO" --dump "$1" 2>/dev/null | awk '$2 == "SAMPLE" && $5 == "size" {
		for (i = 6; i <= NF; i++) {
			if ($i == "pid") p = $(i + 1); else if ($i == "tid") t = $(i + 1); else if ($i == "ip") ip = $(i + 1)
			else if ($i == "time") tm = $(i + 1); else if ($i == "period") pe = $(i + 1)
		}
		sub("^0x", "", ip); print p, t, tm, pe, ip }' | sort
}
perf_samples() {
	perf script -i "$1" -F pid,tid,time,period,ip --ns -G --no-itrace 2>/dev/null | awk '{
		split($1, a, "/"); tm = $2; sub(":", "", tm); sub("\\.", "", tm); sub("^0*", "", tm); if (tm == "") tm = 0
		print a[1], a[2], tm, $3, $4 }' | sort
}
ours_frames() {
	"$INFO" --dump "$1" 2>/dev/null | awk '$2 == "SAMPLE" && / callchain / {
		for (i = 6; i <= NF; i++) if ($i == "time") t = $(i + 1)
		n = 0; s = 0
		for (i = 6; i <= NF; i++) { if ($i == "callchain") { s = 1; continue } if (s && $i ~ /^0x/ && $i !~ /^0xfffffffffff/) n++; else if (s && $i !~ /^0x/) s = 0 }
		print t, n }' | sort
}
perf_frames() {
	perf script -i "$1" -F time,ip --ns --no-itrace 2>/dev/null | awk '
		/: *$/ { if (t != "") print t, n; t = $1; sub(":", "", t); sub("\\.", "", t); sub("^0*", "", t); n = 0; next }
		NF { n++ } END { if (t != "") print t, n }' | sort
}

for f in "${files[@]}"; do
	b=$(basename "$f")
	run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" --json "$f"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["unmatched_samples"] == 0' "$T_TMP/out"
	ok $(( RC || $? )) "$b: read, valid JSON, every sample matched to its event"
	[ -s "$T_TMP/err" ] && sed 's/^/# /' "$T_TMP/err"
	if [ $have_perf = 1 ] && perf report -i "$f" --stats >"$T_TMP/stats" 2>/dev/null; then
		want=$(awk '/ SAMPLE events:/ {print $3; exit}' "$T_TMP/stats")
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(e["samples"] for e in d["events"]))' "$T_TMP/out" >"$T_TMP/got"
		ok $(( $(cat "$T_TMP/got") != ${want:-0} )) "$b: $(cat "$T_TMP/got") samples = perf report --stats"
		perf script -i "$f" -F event -G --no-itrace 2>/dev/null | sed 's/: *$//; s/^ *//' | sort | uniq -c |
			awk '{print $2 "=" $1}' >"$T_TMP/perf-events"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("%s=%d" % (e["event"], e["samples"])) for e in sorted(d["events"], key=lambda e: e["event"]) if e["samples"]]' \
			"$T_TMP/out" | LC_ALL=C sort >"$T_TMP/our-events"
		LC_ALL=C sort -o "$T_TMP/perf-events" "$T_TMP/perf-events"
		same "$T_TMP/perf-events" "$T_TMP/our-events" "$b: samples per event = perf script -F event"
		ours_samples "$f" >"$T_TMP/ours"
		perf_samples "$f" >"$T_TMP/perfs"
		same "$T_TMP/perfs" "$T_TMP/ours" "$b: per sample pid, tid, time, period, ip = perf script ($(wc -l <"$T_TMP/ours") samples)"
		if grep -q CALLCHAIN "$T_TMP/out" && ! grep -q STACK_USER "$T_TMP/out"; then   # (perf script unwinds dwarf stacks)
			ours_frames "$f" >"$T_TMP/ours"
			perf_frames "$f" >"$T_TMP/perfs"
			same "$T_TMP/perfs" "$T_TMP/ours" "$b: callchain frames per sample (context markers dropped) = perf script"
		fi
	else
		skip "$b: perf cannot read it here (or is absent)"
	fi
done
L=$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock+page-faults_gzip_perf6.1.perf.data
"$INFO" --json "$L" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s=%d" % (e["event"], e["samples"]) for e in d["events"]))' >"$T_TMP/got"
grep -qx 'cpu-clock=11 page-faults=14' "$T_TMP/got"; ok $? "two events: samples per event by sample id (11 + 14, as perf script -F event)"
Z=$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock_gzip_zstd-z_perf6.1.perf.data
"$INFO" "$Z" | grep -q '^  SAMPLE  *12$'; ok $? "perf record -z: the 12 samples inside 2 COMPRESSED records decoded"
P=$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock-g_gzip_pipe_perf6.1.pipe.perf.data
"$INFO" "$P" | grep -q 'pipe mode'; ok $? "pipe mode: attrs from HEADER_ATTR, features from HEADER_FEATURE"
"$INFO" "$P" | grep -q '^perf version: 6.1'; ok $? "pipe mode: perf version from the feature records"
"$INFO" - <"$P" >"$T_TMP/out" && grep -q '^file: <stdin> (pipe mode, 6476 bytes)' "$T_TMP/out" && grep -q '^  SAMPLE  *10$' "$T_TMP/out"
ok $? "pipe mode streamed from stdin"
"$INFO" - <"$L" | grep -q '^page-faults .* 14 '; ok $? "file mode from stdin (spooled to a temporary file)"
zstd -q -c "$P" >"$T_TMP/p.zst" && gzip -c "$L" >"$T_TMP/l.gz" && "$INFO" --json "$T_TMP/p.zst" "$T_TMP/l.gz" >"$T_TMP/out"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 2' "$T_TMP/out" &&
	[ "$(grep -c '"samples": 10' "$T_TMP/out")" = 1 ] && grep -q '"page-faults"' "$T_TMP/out"
ok $? ".zst pipe-mode and .gz file-mode perf.data read through the input layer; --json with two files: one array"
F=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data
"$INFO" "$F" >"$T_TMP/out"
grep -q '^command: /usr/bin/perf record -q -g -F 499 -e cpu-clock' "$T_TMP/out" && grep -q '^cpus: 2 online of 2' "$T_TMP/out" &&
	grep -q '^time span: 5125.341698 .. 5128.306397 s' "$T_TMP/out" && grep -q '^build ids: [1-9]' "$T_TMP/out" &&
	grep -q '^topology: 1 sockets' "$T_TMP/out"
ok $? "file mode: command line, CPUs, topology, build ids, time span of the samples"
if have_shared; then
	S=$TD_SHARED/testdata/perfdata
	"$INFO" "$S/intel-rpl-i7-1365U-hybrid_cycles-ppp_perf5.15.perf.data" | grep -q '^hybrid pmu: cpu_core cpus 0-3'
	ok $? "hybrid topology feature: cpu_core and cpu_atom CPUs"
	"$INFO" "$S/intel-skl-m7-6Y75_group-desc_perf4.14.perf.data" | grep -q '^group: .* leader 0, 2 members'
	ok $? "group_desc feature"
	"$INFO" "$S/intel-skl-m7-6Y75_intel-pt+cycles_perf4.14.perf.data" | grep -q '^pmus: .*intel_pt='
	ok $? "pmu_mappings feature"
	"$INFO" --dump "$S/intel-skx-8173M_mem-load-latency_weight-struct_perf5.17.perf.data" | grep -q 'weight 225/0/0 data_src 0x11868100242'
	ok $? "WEIGHT_STRUCT and DATA_SRC decoded (as perf script -F weight,data_src)"
	for b in arm64-etm-injected-brstack-hwindex_chrome_perf5.15 amd-zen4-engsample_lbrv2_rc4-b_perf5.19; do
		"$INFO" --dump "$S/$b.perf.data" | grep -o ' branches [0-9]*' | awk '{print $2}' >"$T_TMP/ours"
		if [ $have_perf = 1 ] && perf script -D -i "$S/$b.perf.data" >"$T_TMP/d" 2>/dev/null; then
			grep -o 'branch stack: nr:[0-9]*' "$T_TMP/d" | sed 's/.*nr://' >"$T_TMP/perfs"
			same "$T_TMP/perfs" "$T_TMP/ours" "$b: branch stack sizes in file order = perf script -D"
		fi
	done
	"$INFO" --dump "$S/arm64-etm-injected-brstack-hwindex_chrome_perf5.15.perf.data" | grep -q ' branches 28 hw_idx 0 0x1085ab3a/0x1085b598/P/-/-/0/0 '
	ok $? "branch stacks with HW_INDEX: hw_idx read before the entries"
fi

# synthetic files written by tests/mkperfdata.py: both byte orders, both modes
for mode in "" --pipe; do
	python3 "$TD_ROOT/tests/mkperfdata.py" "$T_TMP/le.data" $mode && python3 "$TD_ROOT/tests/mkperfdata.py" "$T_TMP/be.data" --be $mode
	run_tool "$T_TMP/le" "$T_TMP/err" "$INFO" --dump "$T_TMP/le.data"
	ok $(( RC || $(wc -c <"$T_TMP/err") )) "synthetic ${mode:-file mode}: little-endian read cleanly"
	run_tool "$T_TMP/be" "$T_TMP/err" "$INFO" --dump "$T_TMP/be.data"
	grep -q 'byte-swapped' "$T_TMP/be"; ok $(( RC || $? || $(wc -c <"$T_TMP/err") )) "synthetic ${mode:-file mode}: big-endian read cleanly, byte-swapped"
	sed 's/be\.data/le.data/; s/, byte-swapped//' "$T_TMP/be" >"$T_TMP/be2"
	same "$T_TMP/le" "$T_TMP/be2" "synthetic ${mode:-file mode}: big-endian decodes to the same records as little-endian"
done
grep -q 'cycles:pp pid 42 tid 42 cpu 0 time 2000 ip 0x400123 .* period 100003 callchain 0xfffffffffffffe00 0x400123 0x400456 branches 2 hw_idx 5 0x400100/0x400200/M/-/-/17/1 0x400300/0x400100/P/-/-/3/6$' "$T_TMP/be"
ok $? "big-endian: callchain with its context marker, branch bitfields (mispred, predicted, cycles, type), hw_idx"
grep -q 'cpu-clock:HG pid 43 tid 43 cpu 1 time 3000 .* period 4000 weight 71/3/0 data_src 0x123 read 10/101 20/201 stack 16/8$' "$T_TMP/be"
ok $? "big-endian: freq event, group read values, regs and stack skipped, weight struct"
grep -q 'COMM misc 0x2000 size 64: 42/42 synthetic (exec) \[sample_id pid 42 tid 42 time 1000 cpu 0\]' "$T_TMP/be" &&
	grep -q 'MMAP2 .*/bin/synthetic \[sample_id' "$T_TMP/be" && grep -q '^lost: 3 events in 1 LOST records, 2 samples' "$T_TMP/be" &&
	grep -q 'UNKNOWN misc 0 size 16' "$T_TMP/be" && grep -q '^host: bigbox, os release , arch ppc64' "$T_TMP/be"
ok $? "big-endian: COMM, MMAP2 with sample_id_all trailers, LOST, LOST_SAMPLES, unknown type skipped, features"
if [ $have_perf = 1 ]; then
	python3 "$TD_ROOT/tests/mkperfdata.py" "$T_TMP/k.data" --no-unknown
	perf script -i "$T_TMP/k.data" -F ip,brstack -G 2>/dev/null | grep -q '0x400100/0x400200/M/-/-/17/COND  0x400300/0x400100/P/-/-/3/RET'
	ok $? "the synthetic file is real perf.data: perf script reads the same branch entries"
fi

# untrusted input: cut and lying files, everything before the fault still counted
size=$(stat -c %s "$F")
for cut in 8 60 200 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$F" >"$T_TMP/cut.data"
	run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/cut.data"
	grep -q "^td-info: $T_TMP/cut.data: offset [0-9]*: " "$T_TMP/err"; ok $(( RC != 2 || $? )) "cut at $cut bytes: 'file: offset N:' message, exit 2"
done
head -c $((size / 2)) "$F" >"$T_TMP/half.data"
n=$("$INFO" --json "$T_TMP/half.data" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"].get("SAMPLE", 0))' 2>/dev/null)
ok $(( ${n:-0} < 100 )) "cut in half: the $n samples before the cut still counted"
# every file cut at six places: exit 2 with an offset message, never a crash
for f in "${files[@]}"; do
	size=$(stat -c %s "$f")
	fails=""
	for k in 1 2 3 4 5 6; do
		cut=$((size * k / 7))
		head -c "$cut" "$f" >"$T_TMP/cut.data"
		run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" --dump "$T_TMP/cut.data"
		grep -q "^td-info: $T_TMP/cut.data: offset [0-9]*: " "$T_TMP/err" && [ $RC = 2 ] || fails="$fails $cut(rc $RC)"
	done
	ok $([ -z "$fails" ]; echo $?) "$(basename "$f") cut at 1/7 .. 6/7: exit 2, offset message${fails:+; failed at$fails}"
done
python3 - "$F" "$T_TMP/lying.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', b, 40)[0]          # data.offset
struct.pack_into('<H', b, off + 6 + 8 * 0, 3)     # first record claims 3 bytes
open(sys.argv[2], 'wb').write(b)
PY
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/lying.data"
grep -q "claims 3 bytes, smaller than its header" "$T_TMP/err"; ok $(( RC != 2 || $? )) "a record claiming 3 bytes: named, exit 2"
python3 - "$F" "$T_TMP/huge.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', b, 48, 1 << 60)            # data.size far past the file
open(sys.argv[2], 'wb').write(b)
PY
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/huge.data"
grep -q "data section of [0-9]* bytes runs past the end of the file" "$T_TMP/err" && grep -q 'SAMPLE  *1548' "$T_TMP/out"; ok $(( RC != 2 || $? )) "a data size past the end: named, what is there still read"
python3 - "$F" "$T_TMP/feat.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)      # data section; the feature table follows it
struct.pack_into('<Q', b, off + size + 8, 1 << 40) # first feature claims 1 TiB
open(sys.argv[2], 'wb').write(b)
PY
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/feat.data"
grep -q "offset [0-9]*: feature .* outside the file" "$T_TMP/err" && grep -q 'SAMPLE  *1548' "$T_TMP/out"; ok $(( RC != 2 || $? )) "a feature section past the end: named, the data still read"
python3 - "$T_TMP/le.data" "$T_TMP/nr.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())   # the synthetic file: its first sample's callchain nr
i = b.find((3).to_bytes(8, 'little') + ((1 << 64) - 512).to_bytes(8, 'little'))
b[i:i + 8] = (1 << 40).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(b)
PY
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/nr.data"
grep -q "offset [0-9]*: sample does not fit its event's layout" "$T_TMP/err" && grep -q '^  EXIT  *1$' "$T_TMP/out"
ok $(( RC != 2 || $? )) "a callchain claiming 2^40 entries: that sample named and skipped, the records after it read"
: >"$T_TMP/empty.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/empty.data"
grep -q 'offset 0: too short' "$T_TMP/err"; ok $(( RC != 2 || $? )) "empty file: exit 2"
printf 'this is perf script text, not perf.data\n' >"$T_TMP/text.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/text.data"
grep -q 'not perf.data' "$T_TMP/err"; ok $(( RC != 2 || $? )) "text file: not perf.data, exit 2"
head -c 4096 /dev/urandom >"$T_TMP/random.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/random.data"
ok $(( RC != 2 )) "random bytes: exit 2, no crash"
{ printf 'PERFILE2'; head -c 4096 /dev/urandom; } >"$T_TMP/random.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/random.data"
grep -q 'offset [0-9]*: ' "$T_TMP/err"; ok $(( RC != 2 || $? )) "the magic then random bytes: offset message, exit 2"
done_testing
