#!/usr/bin/env bash
# td-collect --measure-peaks on aarch64: the NEON FMA kernel of
# filters/td-collect/peaks.c, cross-built (Debian gcc-aarch64-linux-gnu) with
# tests/unit/test_peaks_kernels.c and run under qemu-aarch64 (Debian
# qemu-user): its value equals the scalar loop's, it does the FLOPs the
# measurement counts, and the whole measurement runs. Under qemu the figures
# mean nothing for speed; the loop's instructions are checked instead: one
# FMLA per chain and no register copy (a copy per FMA would halve or third
# the peak a real core reaches). Skipped, saying why, without the tools.
. "$(dirname "$0")/lib.sh"
CC=aarch64-linux-gnu-gcc
QEMU=qemu-aarch64
OBJDUMP=aarch64-linux-gnu-objdump
if ! command -v $CC >/dev/null 2>&1 || ! command -v $QEMU >/dev/null 2>&1; then
	skip "no $CC or no $QEMU (Debian: gcc-aarch64-linux-gnu qemu-user)"
	done_testing
	exit
fi
printf '#include <stdio.h>\nint main(void) { return 0; }\n' >"$T_TMP/probe.c"
if ! $CC -static -o "$T_TMP/probe" "$T_TMP/probe.c" 2>/dev/null || ! $QEMU "$T_TMP/probe"; then
	skip "$CC cannot build a static aarch64 program, or $QEMU cannot run it (Debian: libc6-dev-arm64-cross)"
	done_testing
	exit
fi
chains=$(sed -n 's/^#define PEAKS_CHAINS_NEON \([0-9]*\).*/\1/p' "$TD_ROOT/filters/td-collect/peaks.h")
flags=(-std=c11 -D_GNU_SOURCE -I"$TD_ROOT" -O2 -Wall -Wextra -Werror)
run_tool "$T_TMP/o" "$T_TMP/e" $CC "${flags[@]}" -c -o "$T_TMP/peaks.o" "$TD_ROOT/filters/td-collect/peaks.c"
ok $RC "peaks.c cross-built for aarch64, warning-free$( [ $RC = 0 ] || head -3 "$T_TMP/e" | tr '\n' ' ')"
run_tool "$T_TMP/o" "$T_TMP/e" $CC "${flags[@]}" -static -o "$T_TMP/test_peaks_kernels" \
	"$TD_ROOT/tests/unit/test_peaks_kernels.c" "$T_TMP/peaks.o" -lpthread -lm
ok $RC "the kernel test cross-built and linked static$( [ $RC = 0 ] || head -3 "$T_TMP/e" | tr '\n' ' ')"

# The NEON kernel's inner loop: the instructions from a backward branch's
# target to the branch, in the function that holds FMLAs on .2d vectors.
if command -v $OBJDUMP >/dev/null 2>&1; then
	$OBJDUMP -d --no-show-raw-insn "$T_TMP/peaks.o" | awk '
		function hex(s,  v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		/^[0-9a-f]+ <.*>:$/ { n = 0; next }
		/^ *[0-9a-f]+:\t/ {
			split($0, f, "\t"); gsub(/[ :]/, "", f[1]); a = hex(f[1]); op[n] = f[2]; args[n] = f[3]; at[n++] = a
			if (f[2] ~ /^(b\.|cbn?z|tbn?z)/ && match(f[3], /^[0-9a-f]+/)) {
				t = hex(substr(f[3], RSTART, RLENGTH))
				if (t >= a) next
				fmla = copies = total = 0
				for (i = 0; i < n; i++) {
					if (at[i] < t) continue
					total++
					if (op[i] == "fmla" && args[i] ~ /\.2d/) fmla++
					if ((op[i] == "mov" || op[i] == "orr") && args[i] ~ /^v/) copies++
				}
				if (fmla) print fmla, copies, total
			}
		}' >"$T_TMP/loops"
	read -r fmla copies total <"$T_TMP/loops"
	[ "$(wc -l <"$T_TMP/loops")" = 1 ] && [ "$fmla" = "$chains" ] && [ "$copies" = 0 ]
	ok $? "NEON kernel loop: $fmla FMLA .2d for $chains chains, $copies vector register copies, $total instructions"
else
	skip "no $OBJDUMP (Debian: binutils-aarch64-linux-gnu)"
fi

# Its TAP, each check renamed "aarch64: ..."
if [ -x "$T_TMP/test_peaks_kernels" ]; then
	RC=0
	(cd "$T_TMP" && timeout 120 $QEMU ./test_peaks_kernels --measure) >"$T_TMP/tap" 2>"$T_TMP/e" || RC=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "aarch64: ${line#ok * - }" ;;
		"not ok "*) ok 1 "aarch64: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$T_TMP/tap"
	plan=$(sed -n 's/^1\.\.//p' "$T_TMP/tap")
	[ $RC = 0 ] && [ -n "$plan" ] && [ "$plan" = "$(grep -c '^ok ' "$T_TMP/tap")" ]
	ok $? "aarch64: the test ran to its plan under $QEMU (exit $RC$( [ -s "$T_TMP/e" ] && head -1 "$T_TMP/e" | sed 's/^/, /'))"
else
	skip "aarch64: not built"
fi
done_testing
