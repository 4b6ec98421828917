#!/usr/bin/env bash
# td-store's automatic `command` label is the command alone: where a
# capture's notes show the command line with a shell prompt ("$ perf stat
# ...", "[root@R820-04 pmu-tools-master]# ./toplev ...", "user@host:~$ ..."),
# the prompt is not part of the label (parsers/shell_prompt.h). Every
# committed and shared capture with such a line is stored and its labels
# read back.
. "$(dirname "$0")/lib.sh"
S=$TD_BIN/td-store
unset TD_DB
prompt='^[[:space:]]*([$#][[:space:]]|\[[A-Za-z0-9._-]+@[^]]*\][$#][[:space:]]|[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:[^[:space:]]* ?[$#][[:space:]]).*(perf stat|toplev)'
dirs="$TD_ROOT/testdata/stat $TD_ROOT/testdata/toplev"
have_shared && dirs="$dirs $TD_SHARED/testdata/stat $TD_SHARED/testdata/stat_text $TD_SHARED/testdata/stat_csv"
grep -rlE "$prompt" $dirs 2>/dev/null | sort >"$T_TMP/files"
n=$(wc -l <"$T_TMP/files")
ok $(( n < 6 )) "captures with a prompt before perf stat or toplev: $n"
tr '\n' '\0' <"$T_TMP/files" | xargs -0 "$S" add --db "$T_TMP/s.db" >/dev/null 2>"$T_TMP/err"
"$S" list --db "$T_TMP/s.db" --json --limit 1000000 >"$T_TMP/list.json"
python3 - "$T_TMP/list.json" >"$T_TMP/commands" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["labels"].get("command", ""))
PY
runs=$(wc -l <"$T_TMP/commands")
ok $(( runs < n )) "stored: $runs runs"
grep -E '^([$#][[:space:]]|\[[^]]*@[^]]*\][$#]|[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:[^[:space:]]* ?[$#][[:space:]])' "$T_TMP/commands" >"$T_TMP/left"
ok $(( $(wc -l <"$T_TMP/left") != 0 )) "no command label keeps a prompt$(head -1 "$T_TMP/left" | sed 's/^/: /')"
has() { grep -qxF -- "$1" "$T_TMP/commands"; ok $? "command label: $1"; }
has "perf stat -x, -e task-clock,page-faults -- sh -c 'uptime; dd if=/dev/zero of=/dev/null bs=4k count=100000' 2>&1"
has "toplev --all ./workloads/BC1s"
has "toplev.py --core S0-C0 -l1 -v --no-desc taskset -c 0 ./a.out"
has "./toplev.py --core S0-C0 --no-desc -l1 taskset -c 0 runcpu --config=jeongseob-gcc-linux-x86.cfg --action=run 600"
if have_shared; then
	has "./toplev -l10 --pid \$(pgrep mysqld\$) -S sleep 5"
	has "perf stat -M TopdownL1 perf bench mem memcpy"
	has "perf stat -x, -I1000 --interval-count 1 --summary"
	# a command perf's banner names, without a prompt in the file: untouched
	has "taskset -c 2 ./external/llama.cpp/build/bin/llama-bench -m models/tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf -p 0 -n 128 -t 1"
	has "system wide"
fi
done_testing
