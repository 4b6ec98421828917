#!/usr/bin/env bash
# What every tool promises: --help, --version, a man page and a README entry,
# -o FILE, usage errors exit 2,
# unreadable and binary input reported as "tool: FILE:LINE: ..." with exit 2.
. "$(dirname "$0")/lib.sh"
printf 'plain text line\nbinary\0here\n' >"$T_TMP/binary.synthetic"
tools=$(ls "$TD_BIN"/td-* 2>/dev/null)
[ -n "$tools" ] || skip "no tools built in $TD_BIN"
for tool in $tools; do
	name=$(basename "$tool")
	run_tool "$T_TMP/out" "$T_TMP/err" "$tool" --help
	ok $(( RC != 0 )) "$name --help exits 0"
	grep -q "^usage: $name" "$T_TMP/out"; ok $? "$name --help prints usage"
	run_tool "$T_TMP/out" "$T_TMP/err" "$tool" --version
	grep -q "^$name (tdkit) [0-9]" "$T_TMP/out"; ok $? "$name --version"
	[ -s "$TD_ROOT/man/$name.1" ]; ok $? "$name has a man page"
	grep -qF "\`$name\`" "$TD_ROOT/README.md"; ok $? "$name is in the README"
	run_tool "$T_TMP/out" "$T_TMP/err" "$tool" --no-such-option
	ok $(( RC != 2 )) "$name: unknown option exits 2"
	[ "$name" = td-explain ] && continue    # takes node names, not files
	if [ "$name" = td-mcp ]; then           # reads messages, not files: its files are options
		run_tool "$T_TMP/out" "$T_TMP/err" "$tool" --allow-dir "$T_TMP/does-not-exist"
		ok $(( RC != 2 )) "$name: a missing --allow-dir exits 2"
		grep -q "^$name: --allow-dir $T_TMP/does-not-exist: " "$T_TMP/err"; ok $? "$name: missing directory named in the message"
		RC=0; "$tool" --db "$T_TMP/cli.db" <"$T_TMP/binary.synthetic" >"$T_TMP/out" 2>"$T_TMP/err" || RC=$?
		ok $RC "$name: binary input on stdin is answered, not fatal (exit $RC)"
		grep -c '"code":-32700' "$T_TMP/out" | grep -qx 2; ok $? "$name: each binary line gets a parse error, stdout holds only messages"
		continue
	fi
	# td-collect's operand is a command: one that cannot run is named the same way
	twice=""; [ "$name" = td-diff ] && twice=1  # compares two inputs
	verb=""; [ "$name" = td-store ] && verb="add --db $T_TMP/cli.db"   # files go to a verb
	run_tool "$T_TMP/out" "$T_TMP/err" "$tool" $verb "$T_TMP/does-not-exist" ${twice:+"$T_TMP/does-not-exist"}
	ok $(( RC != 2 )) "$name: missing file exits 2"
	grep -q "^$name: $T_TMP/does-not-exist: " "$T_TMP/err"; ok $? "$name: missing file named in the message"
	run_tool "$T_TMP/out" "$T_TMP/err" "$tool" $verb "$T_TMP/binary.synthetic" ${twice:+"$T_TMP/binary.synthetic"}
	ok $(( RC != 2 )) "$name: binary input exits 2"
	grep -q "^$name: $T_TMP/binary.synthetic:[0-9]*: binary data" "$T_TMP/err" ||
	grep -q "^$name: $T_TMP/binary.synthetic" "$T_TMP/err"; ok $? "$name: binary input reported with file and line"
done
done_testing
