#!/usr/bin/env bash
# td-fold reading perf.data itself (no perf script in the pipe), and
# td-info --script, the text it replays.
#  - Recordings made here: replayed with every symbol source switched off
#    (--symfs, --kallsyms /dev/null, no build-id cache) but the binaries
#    committed in a NAME.symfs directory (the C++ demo: demangled names)
#    or the kallsyms committed as NAME.kallsyms.zst (the system-wide one),
#    the text equals the perf script rendering committed beside each file
#    (NAME.{nosym,symfs,kallsyms}-script.txt.gz), byte for byte, and so
#    does the folded output: this runs on any machine, without perf.
#  - Every perf.data here and in ../shared, with perf present: td-fold FILE
#    equals perf script -i FILE | td-fold, symbols resolved as this machine
#    allows; of the file with an Intel PT trace, the regular samples are
#    folded (the trace is not decoded: said once).
#  - --call-graph dwarf recordings (C, C++ -O2, a stripped binary with a
#    .gnu_debuglink debug file beside it, each in its NAME.symfs): unwound
#    with libdw, inline frames from the DWARF, the same text as perf 6.1.
#  - Each folds the same with TD_PLAIN=1 (string tables read into memory
#    instead of mapped).
. "$(dirname "$0")/lib.sh"
FOLD=$TD_BIN/td-fold
INFO=$TD_BIN/td-info
export PERF_BUILDID_DIR=/nonexistent

for f in "$TD_ROOT"/testdata/perfdata/*.perf.data "$TD_ROOT"/testdata/fold/*.perf.data; do
	name=$(basename "$f")
	ref=${f%.perf.data}.nosym-script.txt.gz symfs=/nonexistent ksyms=/dev/null what="no symbols"
	if [ -d "${f%.perf.data}.symfs" ]; then
		ref=${f%.perf.data}.symfs-script.txt.gz symfs=${f%.perf.data}.symfs what="symbols of the committed binaries"
	elif [ -f "${f%.perf.data}.kallsyms.zst" ]; then
		ref=${f%.perf.data}.kallsyms-script.txt.gz ksyms=${f%.perf.data}.kallsyms.zst what="kernel symbols of the committed kallsyms"
	fi
	run_tool "$T_TMP/out" "$T_TMP/err" "$INFO" --script --symfs "$symfs" --kallsyms "$ksyms" "$f"
	gzip -dc "$ref" >"$T_TMP/ref"
	same "$T_TMP/ref" "$T_TMP/out" "$name: td-info --script equals perf script ($what), byte for byte"
	"$FOLD" --symfs "$symfs" --kallsyms "$ksyms" "$f" >"$T_TMP/a" 2>/dev/null
	"$FOLD" "$T_TMP/ref" >"$T_TMP/b" 2>/dev/null
	same "$T_TMP/b" "$T_TMP/a" "$name: td-fold FILE equals td-fold of its perf script rendering"
	TD_PLAIN=1 "$FOLD" --symfs "$symfs" --kallsyms "$ksyms" "$f" >"$T_TMP/b" 2>/dev/null
	same "$T_TMP/b" "$T_TMP/a" "$name: td-fold FILE equals TD_PLAIN=1 (symbol names copied, not mapped)"
done

files=("$TD_ROOT"/testdata/perfdata/*.perf.data "$TD_ROOT"/testdata/fold/*.perf.data)
have_shared && files+=("$TD_SHARED"/testdata/perfdata/*.perf.data)
have_shared || skip "../shared absent: the shared perf.data files are not compared"
unset PERF_BUILDID_DIR
if ! command -v perf >/dev/null; then
	skip "perf absent: td-fold FILE is not compared with perf script | td-fold"
else
	for f in "${files[@]}"; do
		name=$(basename "$f")
		run_tool "$T_TMP/a" "$T_TMP/err" "$FOLD" "$f"
		case $name in
		*intel-pt*)
			# the trace is not decoded: the regular samples are folded,
			# as perf script prints them without the trace's samples
			perf script -i "$f" --itrace=e 2>/dev/null | grep -v '^ *instruction trace error' | "$FOLD" >"$T_TMP/b" 2>/dev/null
			same "$T_TMP/b" "$T_TMP/a" "$name: the regular samples fold as perf script --itrace=e prints them"
			n=$(grep -c 'hardware trace (AUX area' "$T_TMP/err")
			ok $(( RC != 0 || n != 1 )) "$name: said once that the hardware trace is not decoded ($n), exit 0"
			continue ;;
		esac
		perf script -i "$f" 2>/dev/null | "$FOLD" >"$T_TMP/b" 2>/dev/null
		case $name in
		*dwarf*)
			# dwarf stacks through this machine's own libraries: not yet
			# identical everywhere (see td-fold(1), BUGS); the committed
			# renderings above are the binding comparison
			if cmp -s "$T_TMP/b" "$T_TMP/a"; then
				ok 0 "$name: td-fold FILE equals perf script -i FILE | td-fold (dwarf unwinding)"
			else
				skip "$name: dwarf unwinding through this machine's libraries differs from perf's (known gap)"
			fi
			continue ;;
		esac
		same "$T_TMP/b" "$T_TMP/a" "$name: td-fold FILE equals perf script -i FILE | td-fold"
		TD_PLAIN=1 "$FOLD" "$f" >"$T_TMP/b" 2>/dev/null
		same "$T_TMP/b" "$T_TMP/a" "$name: td-fold FILE equals TD_PLAIN=1 with this machine's symbols"
	done
fi

# robustness: cut files keep what came before, exit 2
f=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data
head -c 90000 "$f" >"$T_TMP/cut.data"
run_tool "$T_TMP/a" "$T_TMP/err" "$FOLD" "$T_TMP/cut.data"
n=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/a")
grep -q 'offset' "$T_TMP/err"
ok $(( RC != 2 || $? || n == 0 )) "a cut perf.data: samples before the cut folded ($n), offset named, exit 2"
gzip -c "$f" >"$T_TMP/z.data.gz"
"$FOLD" "$T_TMP/z.data.gz" >"$T_TMP/a" 2>/dev/null; "$FOLD" "$f" >"$T_TMP/b" 2>/dev/null
same "$T_TMP/b" "$T_TMP/a" "a gzip-compressed perf.data folds the same"
"$FOLD" - <"$f" >"$T_TMP/a" 2>/dev/null
same "$T_TMP/b" "$T_TMP/a" "perf.data on stdin folds the same"
done_testing
