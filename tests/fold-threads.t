#!/usr/bin/env bash
# td-fold -jN on a regular file: the file is mapped and cut into one range
# a thread (8 MiB at least), so these inputs are larger than two ranges; on
# a pipe, blocks past the first 16 MiB go to the threads, so they are larger
# than that too. Whatever is wrong with them, stdout, stderr (messages,
# their order and line numbers) and the exit code are those of one thread
# reading a pipe.
# The inputs are the capture recorded for this project (own capture,
# testdata/fold), 40 times over, with damage put in.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/fold
N=$D/local-kvm_cpu-clock-g_gzip-perl_perf6.1
FOLD=$TD_BIN/td-fold

zcat "$N.script.txt.gz" >"$T_TMP/one.txt"
for i in $(seq 40); do cat "$T_TMP/one.txt"; done >"$T_TMP/big.txt"
lines=$(wc -l <"$T_TMP/big.txt")

# agree NAME: big variant $T_TMP/NAME.txt through a pipe with -j1 (the
# reference), then from the file (mapped, "<stdin>" too) with -j1 and -j2
# and through a pipe with -j2 (-j3 cuts no more: 20 MB is two ranges)
agree() {
	local name=$1 fails=0
	cat "$T_TMP/$name.txt" | "$FOLD" -j1 >"$T_TMP/ref.out" 2>"$T_TMP/ref.err"
	echo $? >"$T_TMP/ref.rc"
	for how in file-1 file-2 pipe-2; do
		j=${how#*-}
		if [ "${how%-*}" = file ]; then
			"$FOLD" -j$j <"$T_TMP/$name.txt" >"$T_TMP/j.out" 2>"$T_TMP/j.err"
		else
			cat "$T_TMP/$name.txt" | "$FOLD" -j$j >"$T_TMP/j.out" 2>"$T_TMP/j.err"
		fi
		echo $? >"$T_TMP/j.rc"
		for k in out err rc; do
			if ! cmp -s "$T_TMP/ref.$k" "$T_TMP/j.$k"; then
				fails=$((fails + 1))
				diag "$name $how: std$k differs from one thread on a pipe"
				diff "$T_TMP/ref.$k" "$T_TMP/j.$k" | head -6 | sed 's/^/# /'
			fi
		done
	done
	ok "$fails" "$2"
}

agree big "a 20 MB file folds alike on pipes and mapped with -j1 and -j2"
same "$T_TMP/ref.err" /dev/null "... and says nothing"

# unrecognized lines all along: 14 of them, the first 10 shown (in the
# first range and the second), then the total
awk -v n="$lines" 'NR % int(n / 13) == 7 { print "this is not perf script, line " NR } { print }' \
	"$T_TMP/big.txt" >"$T_TMP/junk.txt"
agree junk "unrecognized lines across ranges: the same first 10 warnings, line numbers and total"
ok $(( $(grep -c 'unrecognized line; ignored' "$T_TMP/ref.err") != 10 )) "... 10 of them shown"
k=$(grep -c '^this is not perf script' "$T_TMP/junk.txt")
grep -q "^td-fold: $k unrecognized lines ignored in all" "$T_TMP/ref.err"; ok $? "... and all $k counted"
# all of them in the second half: the first range shows none
awk -v n="$lines" 'NR > n / 2 && NR % int(n / 30) == 3 { print "  \t " } { print }' \
	"$T_TMP/big.txt" >"$T_TMP/late.txt"
agree late "blank-looking lines in the second half only: the same warnings and line numbers"

# a NUL byte at three quarters, inside a sample: what comes before it is
# folded, "binary data" names its line, the sample it cut is kept, exit 2
at=$(( lines * 3 / 4 ))
{ head -n $(( at - 1 )) "$T_TMP/big.txt"; printf '\tgarbage\0bytes\n'; tail -n +$at "$T_TMP/big.txt"; } >"$T_TMP/bin.txt"
agree bin "binary data in the second range: the same output, message, line and exit code"
grep -q "^td-fold: <stdin>:$at: binary data" "$T_TMP/ref.err"; ok $? "... at the NUL's line"
ok $(( $(cat "$T_TMP/ref.rc") != 2 )) "... exit 2"
# and in the first range, before the ranges are cut
at=$(( lines / 5 ))
{ head -n $(( at - 1 )) "$T_TMP/big.txt"; printf '\tgarbage\0bytes\n'; tail -n +$at "$T_TMP/big.txt"; } >"$T_TMP/bin1.txt"
agree bin1 "binary data in the first range: the rest is not read"

# truncated in the middle of a sample: the note names the last line
head -c 19000000 "$T_TMP/big.txt" >"$T_TMP/trunc.txt"
agree trunc "truncated mid-line and mid-sample: the same output and note"
grep -q "^td-fold: <stdin>:$(wc -l <"$T_TMP/trunc.txt" | awk '{ print $1 + 1 }'): input ends without the blank line" \
	"$T_TMP/ref.err"; ok $? "... naming the last (unterminated) line"

# CRLF: the ranges are cut at "\r\n" blank lines too
sed 's/$/\r/' "$T_TMP/big.txt" >"$T_TMP/crlf.txt"
agree crlf "CRLF: the same bytes as one thread"
cmp -s "$T_TMP/ref.out" <("$FOLD" -j1 "$T_TMP/big.txt" 2>/dev/null); ok $? "... and as LF"

# a 12 MB frame line in the second half (longer than a range's chunk)
awk -v n="$lines" 'NR == int(n * 2 / 3) { printf "\t 1234 "; for (i = 0; i < 1200000; i++) printf "xxxxxxxxxx"; print " (/bin/huge)" } { print }' \
	"$T_TMP/big.txt" >"$T_TMP/huge.txt"
agree huge "a 12 MB line in the second range: the same bytes"

# empty and one-byte files
: >"$T_TMP/empty.txt"
agree empty "empty file: no output, no message, exit 0 for any -j"
printf '\n' >"$T_TMP/nl.txt"
agree nl "a lone newline: alike"

# a mapped file is handed out in chunks (2 MiB, or 1/64 of it under
# TD_PLAIN=1) that the threads take as they come free: with 65 chunks on
# three threads, a chunk's messages are moved to the input's line numbers
# and nothing past the NUL byte is folded, whoever took which chunk
for name in junk late bin bin1 trunc huge; do
	cat "$T_TMP/$name.txt" | "$FOLD" -j1 >"$T_TMP/ref.out" 2>"$T_TMP/ref.err"
	echo $? >"$T_TMP/ref.rc"
	fails=0
	for j in 2 3; do
		TD_PLAIN=1 "$FOLD" -j$j "$T_TMP/$name.txt" >"$T_TMP/j.out" 2>"$T_TMP/j.err"
		echo $? >"$T_TMP/j.rc"
		sed -i "s|$T_TMP/$name.txt|<stdin>|" "$T_TMP/j.err"
		for k in out err rc; do
			cmp -s "$T_TMP/ref.$k" "$T_TMP/j.$k" || { fails=$((fails + 1)); diag "$name -j$j: std$k differs"; }
		done
	done
	ok "$fails" "$name in 65 chunks on 2 and 3 threads: the stdout, stderr and exit code of one thread"
done

# a file whose last sample is open, cut into more chunks than it has
# samples: the chunks after the last blank line are empty, and the note and
# the open sample come from the thread that folded it, whoever that was
head -c 60000 "$T_TMP/one.txt" >"$T_TMP/open.txt"
"$FOLD" -j1 "$T_TMP/open.txt" >"$T_TMP/open.ref" 2>&1
fails=0
for i in $(seq 40); do
	TD_PLAIN=1 "$FOLD" -j4 "$T_TMP/open.txt" 2>&1 | cmp -s - "$T_TMP/open.ref" || fails=$((fails + 1))
done
ok "$fails" "an open last sample after empty chunks, 40 runs on 4 threads: kept and noted as one thread does"

# stdin that is a file read in part: the mapping starts where the reading is
{ head -n 3 >/dev/null; "$FOLD" -j2 >"$T_TMP/part.out" 2>"$T_TMP/part.err"; } <"$T_TMP/one.txt" 2>/dev/null
tail -n +4 "$T_TMP/one.txt" | "$FOLD" -j1 >"$T_TMP/part.ref" 2>/dev/null
same "$T_TMP/part.ref" "$T_TMP/part.out" "stdin positioned past its first lines folds from there"

# two files in a row, the second damaged: line numbers are each file's own
{ head -n 500 "$T_TMP/big.txt"; echo "junk at 501"; } >"$T_TMP/small.txt"
"$FOLD" -j2 "$T_TMP/small.txt" "$T_TMP/junk.txt" >"$T_TMP/two.out" 2>"$T_TMP/two.err"
"$FOLD" -j1 "$T_TMP/small.txt" "$T_TMP/junk.txt" >"$T_TMP/two1.out" 2>"$T_TMP/two1.err"
same "$T_TMP/two1.err" "$T_TMP/two.err" "two files, -j2: the messages of -j1 (10 in all, the first file's included)"
same "$T_TMP/two1.out" "$T_TMP/two.out" "two files, -j2: the output of -j1"

# the output's sort: past 8192 stacks a thread, the stacks are cut into
# parts between sampled splitters, each sorted and joined on its own thread
# and written in order; 60000 distinct synthetic stacks of names that
# prefix each other, with a ';' in a comm (no name ranks) and without
awk 'BEGIN {
	n = split("a a.b a: a0 ab a-b a/x b a. A a_ aa a.b.c a~ a<", name, " ")
	srand(11)
	for (k = 0; k < 60000; k++) {
		printf "%s 1 1.0: %d cpu-clock:\n", (k % 7 ? "cq" : (k % 2 ? "cq.x" : "c;q")), k % 5 + 1
		for (d = int(rand() * 6) + 3; d > 0; d--)
			printf "\t%x %s%d+0x1 (/x/l)\n", k * 8 + d, name[int(rand() * n) + 1], int(rand() * 4)
		print ""
	}
}' >"$T_TMP/many-synthetic.txt"
grep -v 'c;q' "$T_TMP/many-synthetic.txt" >"$T_TMP/many-ranked-synthetic.txt"
for f in many-synthetic many-ranked-synthetic; do
	TD_PLAIN=1 "$FOLD" -j1 "$T_TMP/$f.txt" >"$T_TMP/sort.ref" 2>/dev/null
	fails=0
	for j in 1 2 3 4; do
		"$FOLD" -j$j "$T_TMP/$f.txt" 2>/dev/null | cmp -s - "$T_TMP/sort.ref" || { fails=$((fails + 1)); diag "$f -j$j differs"; }
	done
	ok "$fails" "$f: $(wc -l <"$T_TMP/sort.ref") stacks sorted in parts by -j2, -j3, -j4 as one thread sorts them byte by byte"
done

done_testing
