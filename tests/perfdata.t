#!/usr/bin/env bash
# The perf.data reader through td-info: every shared file (perf 3.3 to 6.12,
# x86, i686, armv7, arm64, hybrid, pipe mode) and the recordings made here
# (pipe mode, zstd -z, two events); counts equal perf's own at test time;
# truncated, lying and foreign files give file: offset N messages, exit 2.
. "$(dirname "$0")/lib.sh"
INFO=$TD_BIN/td-info
files=("$TD_ROOT"/testdata/perfdata/*.perf.data "$TD_ROOT"/testdata/fold/*.perf.data)
have_shared && files+=("$TD_SHARED"/testdata/perfdata/*.perf.data)
have_shared || skip "../shared absent: only the recordings made here are read"
have_perf=0
command -v perf >/dev/null && have_perf=1
for f in "${files[@]}"; do
	b=$(basename "$f")
	run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" --json "$f"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["unmatched_samples"] == 0' "$T_TMP/out"
	ok $(( RC || $? )) "$b: read, every sample matched to its event"
	if [ $have_perf = 1 ] && perf report -i "$f" --stats >"$T_TMP/stats" 2>/dev/null; then
		want=$(awk '/ SAMPLE events:/ {print $3; exit}' "$T_TMP/stats")
		perf script -i "$f" -F event 2>/dev/null | sed 's/: *$//; s/^ *//' | sort | uniq -c | awk '{print $2, $1}' >"$T_TMP/perf-events"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(e["samples"] for e in d["events"]))' "$T_TMP/out" >"$T_TMP/got"
		ok $(( $(cat "$T_TMP/got") != ${want:-0} )) "$b: $(cat "$T_TMP/got") samples = perf report --stats"
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
F=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data
"$INFO" "$F" >"$T_TMP/out"
grep -q '^command: /usr/bin/perf record -q -g -F 499 -e cpu-clock' "$T_TMP/out" && grep -q '^cpus: 2 online of 2' "$T_TMP/out" &&
	grep -q '^time span: 5125.341698 .. 5128.306397 s' "$T_TMP/out"
ok $? "file mode: command line, CPUs, time span of the samples"

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
: >"$T_TMP/empty.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/empty.data"
grep -q 'too short' "$T_TMP/err"; ok $(( RC != 2 || $? )) "empty file: exit 2"
printf 'this is perf script text, not perf.data\n' >"$T_TMP/text.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/text.data"
grep -q 'not perf.data' "$T_TMP/err"; ok $(( RC != 2 || $? )) "text file: not perf.data, exit 2"
head -c 4096 /dev/urandom >"$T_TMP/random.data"
run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" "$T_TMP/random.data"
ok $(( RC != 2 )) "random bytes: exit 2, no crash"
done_testing
