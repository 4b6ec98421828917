#!/usr/bin/env bash
# td-fold names the inline frames of --call-graph dwarf stacks from an
# index of each DWARF scope's code DIEs (parsers/dwarf_inlines.c), built
# once per scope instead of walking the DIEs for every address: the same
# bytes as the walk (TD_PLAIN=1, common/plain.h) on every dwarf recording
# of testdata/ (with its committed binaries: C, C++ with templates and
# lambdas, Rust with functions nested in namespaces and impls, a stripped
# binary with a debuglink; and with this machine's own binaries: libc's
# DWARF, units missing from .debug_aranges), of ../shared, and on
# TD_DWARF_BIG=FILE when set.
. "$(dirname "$0")/lib.sh"
FOLD=$TD_BIN/td-fold
[ -x "$FOLD" ] || { skip "td-fold not built"; done_testing; exit; }

for f in "$TD_ROOT"/testdata/perfdata/*dwarf*.perf.data; do
	name=$(basename "$f")
	if [ -d "${f%.perf.data}.symfs" ]; then
		PERF_BUILDID_DIR=/nonexistent same_as_plain "$name (committed binaries)" "$FOLD" -j2 \
			--symfs "${f%.perf.data}.symfs" --kallsyms /dev/null "$f" >>"$T_TMP/why"
		ok $? "$name (committed binaries): the index names the frames the walk names"
		# and both are perf's: its rendering of the same file, folded
		gzip -dc "${f%.perf.data}.symfs-script.txt.gz" | "$FOLD" >"$T_TMP/ref" 2>/dev/null
		same "$T_TMP/ref" "$T_TMP/fast.out" "$name (committed binaries): equals td-fold of perf script's rendering"
	fi
	same_as_plain "$name (this machine's binaries)" "$FOLD" -j2 "$f" >>"$T_TMP/why"
	ok $? "$name (this machine's binaries): the index names the frames the walk names"
done
grep -q ';' "$T_TMP/fast.out"; ok $? "the last one folded to stacks"

if have_shared; then
	for f in "$TD_SHARED"/testdata/perfdata/*dwarf*.perf.data; do
		same_as_plain "shared $(basename "$f")" "$FOLD" -j2 "$f" >>"$T_TMP/why"
		ok $? "shared $(basename "$f"): the index names the frames the walk names"
	done
else
	skip "../shared absent: its dwarf recordings are not compared"
fi

if [ -n "${TD_DWARF_BIG:-}" ] && [ -s "$TD_DWARF_BIG" ]; then
	same_as_plain "TD_DWARF_BIG" "$FOLD" -j2 "$TD_DWARF_BIG" >>"$T_TMP/why"
	ok $? "TD_DWARF_BIG $(basename "$TD_DWARF_BIG"): the index names the frames the walk names"
else
	skip "TD_DWARF_BIG unset: no big dwarf recording compared"
fi
[ -s "$T_TMP/why" ] && sed 's/^/# /' "$T_TMP/why"
done_testing
