#!/usr/bin/env bash
# td-fold's memo of sample bodies (fold_text: frame lines seen before fold
# from what they gave) gives the bytes of the plain path: every perf script
# text in the repository, the shared captures and the fuzz seeds, each as is
# and three times over (so the memo is hit, and hit across files and events
# the default filter skips), with -j1 and -j2 and the options that change
# names, as is and with TD_PLAIN=1 (common/plain.h): stdout, stderr and the
# exit code must be the same.
. "$(dirname "$0")/lib.sh"
F=$TD_BIN/td-fold
[ -x "$F" ] || { skip "td-fold not built"; done_testing; exit; }
inputs=()
for f in "$TD_ROOT"/testdata/fold/*.script.txt.gz "$TD_ROOT"/tests/fuzz/seeds/script/*; do
	[ -f "$f" ] && inputs+=("$f")
done
if have_shared; then
	for f in "$TD_SHARED"/testdata/script_callchain/* "$TD_SHARED"/compat/flamegraph/*perf*; do
		[ -f "$f" ] && inputs+=("$f")
	done
else
	skip "shared captures absent ($TD_SHARED/testdata)"
fi
# three copies of everything in one stream: bodies repeat, events mix
for f in "${inputs[@]}"; do zcat -f "$f"; echo; done >"$T_TMP/all.txt"
cat "$T_TMP/all.txt" "$T_TMP/all.txt" "$T_TMP/all.txt" >"$T_TMP/all3.txt"
# the same with CRLF line ends
sed 's/$/\r/' "$T_TMP/all.txt" >"$T_TMP/all-crlf.txt"

compare() { same_as_plain "$1" "$F" "${@:2}"; }   # compare DESCRIPTION ARGS...
# differing NAME FILE LOG OPTS...: compare FILE at -j1 and -j2 with each of
# OPTS ("" for none), what differs into LOG; prints how many runs differ
differing() {
	local name=$1 file=$2 log=$3 n=0 opts j
	shift 3
	for opts in "$@"; do
		for j in 1 2; do
			# shellcheck disable=SC2086
			compare "$name -j$j $opts" -j$j $opts "$file" >>"$log" || n=$((n + 1))
		done
	done
	echo "$n"
}
# in_byte_order FILE DESCRIPTION: td-fold FILE's stacks come in LC_ALL=C order
in_byte_order() {
	run_to "$T_TMP/order" "$F" "$1"
	sed 's/ [0-9]*$//' "$T_TMP/order.out" | LC_ALL=C sort -c 2>"$T_TMP/sort-c"
	ok $? "$2"
}
fails=0
for f in "${inputs[@]}"; do
	compare "$(basename "$f")" "$f" >>"$T_TMP/fails" || fails=$((fails + 1))
done
ok "$fails" "memo equals TD_PLAIN=1 on each of ${#inputs[@]} inputs"
for j in 1 2; do
	for opts in "" "--pid --kernel" "--tid --all --addrs" "--perl-compat" "--exact-comm --skip-after main"; do
		fails=0
		for f in all3 all-crlf; do
			# shellcheck disable=SC2086
			compare "$f -j$j $opts" -j$j $opts "$T_TMP/$f.txt" >>"$T_TMP/fails" || fails=$((fails + 1))
		done
		ok "$fails" "memo equals TD_PLAIN=1 on all inputs three times over and in CRLF, -j$j ${opts:-(no options)}"
	done
done
[ -s "$T_TMP/fails" ] && sed 's/^/# /' "$T_TMP/fails" | head -20
# the output's sort by name ranks (fold_write) orders texts as bytes do
# where names are prefixes of each other and the byte after the shorter
# one sorts below ';' or above it, ends a stack or not, and where a comm
# holds a ';' itself (no ranks): a synthetic stream of such names
awk 'BEGIN {
	n = split("a a.b a: a0 ab a-b a/x b a. A a_ aa a.b.c a~ a<", name, " ")
	srand(7)
	for (k = 0; k < 3000; k++) {
		printf "%s 1 1.0: 1 cpu-clock:\n", (k % 7 ? "cq" : (k % 2 ? "cq.x" : "c;q"))
		for (d = int(rand() * 5) + 1; d > 0; d--)
			printf "\t%x %s+0x1 (/x/l)\n", k * 8 + d, name[int(rand() * n) + 1]
		print ""
	}
}' >"$T_TMP/synthetic-prefixes.txt"
grep -v 'c;q' "$T_TMP/synthetic-prefixes.txt" >"$T_TMP/synthetic-ranked.txt"
fails=0
for f in synthetic-prefixes synthetic-ranked; do
	compare "$f" "$T_TMP/$f.txt" >>"$T_TMP/fails-sort" || fails=$((fails + 1))
done
ok "$fails" "sorted by name ranks equals TD_PLAIN=1's byte order on names that prefix each other, with a ';' comm and without"
[ -s "$T_TMP/fails-sort" ] && sed 's/^/# /' "$T_TMP/fails-sort"
in_byte_order "$T_TMP/synthetic-ranked.txt" "with no ';' in a name (ranks used) the stacks come in LC_ALL=C byte order"
# the ranked sort a few tokens at a time (fold_write): deep stacks sharing
# up to 50 frames (runs of equal keys long enough for the radix sort, the
# comparison sort and insertion, level after level), names that prefix
# each other within and past 8 bytes, and with one stack of 33000 names
# (ranks wider than 16 bits) and without; over 4096 stacks, so -j2 sorts
# on two threads
awk -v wide="$T_TMP/synthetic-deep-wide.txt" 'BEGIN {
	srand(23)
	nm = split("a a0 a.b ab a-b abcdefghij abcdefghij.x abcdefghij0 abcdefghijk b x_y", mid, " ")
	for (k = 0; k < 9000; k++) {
		printf "%s %d 1.0: %d cpu-clock:\n", (k % 5 ? "cc" : "cc1"), k, k % 3 + 1
		depth = int(rand() * 60) + 1
		shared = int(rand() * 50)
		variant = int(rand() * 3)
		for (j = 0; j < depth; j++)
			f[j] = j < shared ? "deep_frame_" (j * 7 + variant) % 23 : mid[int(rand() * nm) + 1]
		for (j = depth - 1; j >= 0; j--)
			printf "\t%x %s+0x1 (/x/l)\n", k * 64 + j, f[j]
		print ""
	}
	printf "cc 1 1.0: 1 cpu-clock:\n" >wide
	for (j = 0; j < 33000; j++)
		printf "\t%x fn_shared_prefix_%d+0x1 (/x/l)\n", j, j >wide
	print "" >wide
}' >"$T_TMP/synthetic-deep.txt"
cat "$T_TMP/synthetic-deep.txt" >>"$T_TMP/synthetic-deep-wide.txt"
fails=0
for f in synthetic-deep synthetic-deep-wide; do
	for j in 1 2; do
		compare "$f -j$j" -j$j "$T_TMP/$f.txt" >>"$T_TMP/fails-deep" || fails=$((fails + 1))
	done
done
ok "$fails" "the ranked sort equals TD_PLAIN=1's byte order on deep stacks sharing long prefixes, ranks of 16 bits and of 17"
[ -s "$T_TMP/fails-deep" ] && sed 's/^/# /' "$T_TMP/fails-deep"
in_byte_order "$T_TMP/synthetic-deep-wide.txt" "deep stacks come in LC_ALL=C byte order"
# the caches of frame lines (each line checked against the one that followed
# its predecessor last time), of headers' event tails and of root names, on
# the real captures with their headers rewritten: root names that collide in
# the cache, longer than it holds, java and not over the same frames (the
# frame's names differ, its key bytes do not), periods and blanks that change
# the tail, and a symbol longer than the frame table keeps
awk 'BEGIN {
	n = split("java javac ja a b java-17 javaw x y z", base, " ")
	for (i = 1; i <= 150; i++)
		name[i] = base[i % n + 1] (i > 10 ? i : "") (i % 37 == 0 ? sprintf("%050d", i) : "")
	long = sprintf("%5000s", "")
	gsub(/ /, "Lq", long)
}
/^[^ \t#]/ && /:/ {
	k++
	$1 = name[k % 150 + 1]
	sub(/: +[0-9]+ /, ": " (k % 5 + 1) * 1000 + (k % 11 == 0) " ")
	if (k % 13 == 0)
		$0 = $0 "  "
	print
	if (k % 97 == 0)
		printf "\t%16x %s+0x1 (/x/l%s)\n", k, long, long
	next
}
{ print }' "$T_TMP/all.txt" >"$T_TMP/synthetic-headers.txt"
fails=0
for opts in "" "--pid" "--tid --all --addrs"; do
	# shellcheck disable=SC2086
	compare "synthetic-headers $opts" $opts "$T_TMP/synthetic-headers.txt" >>"$T_TMP/fails-caches" || fails=$((fails + 1))
done
ok "$fails" "frame-line, event-tail and root-name caches equal TD_PLAIN=1 on rewritten headers (no options, --pid, --tid --all --addrs)"
[ -s "$T_TMP/fails-caches" ] && sed 's/^/# /' "$T_TMP/fails-caches"
# the frame-line text caches (the line that followed a record last time,
# the text after the address) on the real captures with their frame lines
# rewritten: the same text after other addresses (as ASLR gives), symbols
# that extend the ones before, CRs, other blanks before the address, a
# blank after the dso, and java and non-java roots over the same lines
awk '/^[ \t]/ {
	k++
	if (k % 3 == 0)
		sub(/[0-9a-f]+ /, sprintf("%x ", k % 5 * 4096 + 17))
	if (k % 7 == 0)
		sub(/\+0x/, "_+0x")
	if (k % 17 == 0)
		sub(/^\t/, "        ")
	if (k % 19 == 0)
		$0 = $0 " "
	if (k % 11 == 0)
		$0 = $0 "\r"
	print
	next
}
/^[^ \t#]/ && /:/ { h++; if (h % 4 == 0) sub(/^[^ ]+/, "java") }
{ print }' "$T_TMP/all.txt" >"$T_TMP/synthetic-frames.txt"
fails=$(differing synthetic-frames "$T_TMP/synthetic-frames.txt" "$T_TMP/fails-lines" "" "--all --addrs" "--perl-compat")
ok "$fails" "frame-line text caches equal TD_PLAIN=1 on rewritten frame lines (addresses, symbols, CRs, blanks, java roots)"
[ -s "$T_TMP/fails-lines" ] && sed 's/^/# /' "$T_TMP/fails-lines"
# the body memo's start chains: many bodies sharing their first lines
# (chains longer than those compared before the body's hash is asked,
# met in changing orders), a body that starts another one and stops a
# line short of it, bodies shorter than a chain's start, the same bodies
# in a java sample and in one of an event not kept, and a body cut by the
# end of the input
awk 'BEGIN {
	srand(11)
	for (r = 0; r < 400; r++) {
		k = int(rand() * 40)
		comm = (r % 5 == 3) ? "java" : "sh"
		ev = (r % 7 == 4) ? "page-faults" : "cpu-clock"
		printf "%s %d %d.%06d: 1 %s:\n", comm, 10 + r % 3, r, r, ev
		print "\t    7f0000001000 leaf_function_shared+0x10 (/usr/lib/libshared.so)"
		print "\t    7f0000002000 middle_function_shared+0x20 (/usr/lib/libshared.so)"
		if (k < 30)
			printf "\t    7f00000%05x caller_%d+0x%x (/usr/lib/libshared.so)\n", k, k, k
		if (k % 4 == 0)
			print "\t    7f0000003000 root+0x1 (/usr/bin/app)"
		print ""
		printf "sh 20 %d.5: 1 cpu-clock:\n", r
		printf "\t%x f%d (m)\n", k % 3, k % 3
		print ""
	}
	print "sh 21 999.0: 1 cpu-clock:"
	print "\t    7f0000001000 leaf_function_shared+0x10 (/usr/lib/libshared.so)"
	printf "\t    7f0000002000 middle_function_shared+0x20 (/usr/lib/libshared.so)"
}' >"$T_TMP/synthetic-chains.txt"
fails=$(differing synthetic-chains "$T_TMP/synthetic-chains.txt" "$T_TMP/fails-chains" "" "--pid --addrs")
ok "$fails" "memo start chains (shared starts, a body ending a line short of another, short bodies, java, events not kept, a cut body) equal TD_PLAIN=1"
[ -s "$T_TMP/fails-chains" ] && sed 's/^/# /' "$T_TMP/fails-chains"
# the body memo's schedule and the line keys' sampled hash: first the
# captures with each sample's first frame line at an address of its own
# (no body repeats: the memo rests after a period of lookups that miss) and
# every other symbol of 26 bytes or more changed at its 9th byte alone
# (the bytes the line hash reads stay: keys that differ share a hash),
# then the captures twice as they are (the rest ends, bodies hit again)
awk '/^$/ { first = 1; print; next }
/^[ \t]/ {
	k++
	if (first) {
		s++
		sub(/[0-9a-f]+ /, sprintf("%x ", 1048576 + s))
	}
	first = 0
	sym = $2
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if (k % 2 == 0 && length(sym) >= 26) {
		i = index($0, $2)
		$0 = substr($0, 1, i + 7) "Q" substr($0, i + 9)
	}
	print
	next
}
{ first = 1; print }' "$T_TMP/all.txt" >"$T_TMP/synthetic-unique.txt"
cat "$T_TMP/all.txt" "$T_TMP/all.txt" >>"$T_TMP/synthetic-unique.txt"
fails=0
for j in 1 2; do
	compare "synthetic-unique -j$j" -j$j "$T_TMP/synthetic-unique.txt" >>"$T_TMP/fails-unique" || fails=$((fails + 1))
done
ok "$fails" "memo rests and resumes, keys sharing a line hash stay apart: equal to TD_PLAIN=1 (-j1, -j2)"
[ -s "$T_TMP/fails-unique" ] && sed 's/^/# /' "$T_TMP/fails-unique"
# the line table's records: frames that count as [unknown] (the end-of-run
# note) and ones that do not, one name each, pushed from a record; and keys
# the line hash does not tell apart (the same symbol, dsos of one length
# whose last 8 bytes agree: "[kernel.kallsyms]" is a kernel dso for
# --kernel, "/kernel.kallsyms]" is not), met in turn as first and later lines
awk 'BEGIN {
	for (k = 0; k < 4000; k++) {
		printf "cc%d %d %d.0: 1 cpu-clock:\n", k % 3, 100 + k % 7, k
		printf "\t%x [unknown] ([unknown])\n", 4096 + k % 50
		if (k % 4 == 0)
			printf "\t%x [unknown] (/usr/bin/q)\n", 4096 + k % 9
		printf "\tffffffff8100%04x do_%d+0x%x (%s)\n", k % 40, k % 5, k % 3 + 1, k % 2 ? "[kernel.kallsyms]" : "/kernel.kallsyms]"
		printf "\tffffffff8100%04x do_%d+0x%x (%s)\n", k % 40, k % 5, k % 3 + 1, k % 3 ? "[kernel.kallsyms]" : "/kernel.kallsyms]"
		printf "\t%x main+0x1 (/usr/bin/q)\n\n", 64 + k % 2
	}
}' >"$T_TMP/synthetic-records.txt"
fails=$(differing synthetic-records "$T_TMP/synthetic-records.txt" "$T_TMP/fails-records" "" "--kernel" "--all --addrs")
ok "$fails" "line records (unknown and known single names, keys sharing a line hash) equal TD_PLAIN=1 (-j1, -j2; --kernel, --all --addrs)"
[ -s "$T_TMP/fails-records" ] && sed 's/^/# /' "$T_TMP/fails-records"
grep -q "frames are \[unknown\]" "$T_TMP/plain.err"
ok $? "the synthetic records' run ends with the [unknown] note"
# the memo is a fast path, not a second answer: -j1 and -j2 agree on the mixed stream
run_to "$T_TMP/j1" "$F" -j1 "$T_TMP/all3.txt"
run_to "$T_TMP/j2" "$F" -j2 "$T_TMP/all3.txt"
same "$T_TMP/j1.out" "$T_TMP/j2.out" "-j1 and -j2 fold the mixed stream to the same bytes"
done_testing
