#!/usr/bin/env bash
# A short run of every libFuzzer target (make fuzz runs them longer), so a
# parser regression that crashes on odd input fails make test. Seeds: the
# target's tests/fuzz/seeds directory and the real captures the Makefile
# names for it (TD_SEEDS_fuzz_NAME), read in place.
. "$(dirname "$0")/lib.sh"
FUZZ_DIR=${TD_FUZZ_DIR:-$TD_ROOT/build-fuzz}
SECONDS_EACH=${TD_FUZZ_SECONDS:-3}
found=0
for src in "$TD_ROOT"/tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	found=1
	if [ -n "${TD_SANITIZED:-}" ] && [ "${TD_SANITIZED}" != 0 ]; then
		skip "$name: fuzzers run in the plain test run, not again under the sanitizer build"
		continue
	fi
	if [ ! -x "$FUZZ_DIR/$name" ]; then
		skip "$name not built (needs clang with libFuzzer: apt-get install clang libclang-rt-14-dev)"
		continue
	fi
	seeds="$TD_ROOT/tests/fuzz/seeds/${name#fuzz_}"
	corpus="$T_TMP/$name"
	mkdir -p "$corpus"
	args=("$corpus")
	[ -d "$seeds" ] && args+=("$seeds")
	var=TD_SEEDS_$name
	for d in ${!var:-}; do [ -d "$d" ] && args+=("$d"); done
	"$FUZZ_DIR/$name" -max_total_time="$SECONDS_EACH" -max_len=16384 -rss_limit_mb=1024 \
		"${args[@]}" >"$T_TMP/$name.log" 2>&1
	rc=$?
	ok $rc "$name: ${SECONDS_EACH}s of fuzzing without a crash"
	[ $rc -eq 0 ] || tail -n 20 "$T_TMP/$name.log" | sed 's/^/# /'
done
[ $found -eq 1 ] || skip "no fuzz targets yet"
done_testing
