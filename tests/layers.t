#!/usr/bin/env bash
# The layers of ARCHITECTURE.md hold: common/ < parsers/ < analysis/ <
# reports/ < filters/; no file includes a higher layer, and the files of
# parsers/ include each other without a circle (the stat dispatcher,
# stat_read.c, sits above the readers it calls).
. "$(dirname "$0")/lib.sh"
cd "$TD_ROOT" || exit 1
includes() { grep -l "#include \"$2/" $1 2>/dev/null | tr '\n' ' '; }
bad=$(includes "common/*.[ch]" parsers; includes "common/*.[ch]" analysis; includes "common/*.[ch]" reports)
[ -z "$bad" ]; ok $? "no common/ file includes a higher layer${bad:+: $bad}"
bad=$(includes "parsers/*.[ch]" analysis; includes "parsers/*.[ch]" reports)
[ -z "$bad" ]; ok $? "no parsers/ file includes analysis/ or reports/${bad:+: $bad}"
bad=$(includes "analysis/*.[ch]" reports)
[ -z "$bad" ]; ok $? "no analysis/ file includes reports/${bad:+: $bad}"
# roofline is a leaf of analysis/: its .c includes no analysis header but
# its own, and its header none but metrics.h (the counter sets it reads)
bad=$(grep -h '#include "analysis/' analysis/roofline.c analysis/roofline.h | grep -v '"analysis/roofline.h"\|"analysis/metrics.h"' | tr '\n' ' ')
[ -z "$bad" ]; ok $? "analysis/roofline includes no other analysis module${bad:+: $bad}"
# the files of parsers/ as a graph: a -> b when a.o uses a symbol b.o defines
objs=$(ls "${TD_BUILD:-$TD_ROOT/build}"/parsers/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	skip "parsers/ not built in ${TD_BUILD:-$TD_ROOT/build}"
else
	NM=nm; command -v gcc-nm >/dev/null && NM=gcc-nm     # reads -flto objects too
	for o in $objs; do $NM "$o" | awk -v m="$(basename "$o" .o)" '$1 ~ /^[TDBR]$/ || $2 ~ /^[TDBR]$/ { print "def", m, $NF } $1 == "U" { print "use", m, $2 }'; done >"$T_TMP/syms"
	awk '$1 == "def" { d[$3] = $2 } $1 == "use" && ($3 in d) && d[$3] != $2 { print $2, d[$3] }' \
		<(grep '^def' "$T_TMP/syms") <(grep '^use' "$T_TMP/syms") | sort -u >"$T_TMP/edges"
	cycle=$(tsort "$T_TMP/edges" 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')
	[ -z "$cycle" ]; ok $? "parsers/ files call each other without a circle${cycle:+: $cycle}"
fi
done_testing
