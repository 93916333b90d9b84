#!/usr/bin/env bash
# The browser tests N times in a row (default 10) beside two busy processes, stopping at the first failure:
# the check that no browser test depends on an idle machine. One line per run in browser_loop.log.
#   bash scripts/browser_loop.sh [N]        (from a checkout whose .venv has requirements-dev.txt)
set -u
cd "$(dirname "$0")/.."
N=${1:-10}
PY=${PYTHON:-.venv/bin/python}
export HF_HUB_OFFLINE=1
summary=browser_loop.log
: > "$summary"
for i in $(seq 1 "$N"); do
  timeout 3000 "$PY" -c "while True: pass" & b1=$!
  timeout 3000 "$PY" -c "while True: pass" & b2=$!
  start=$(date +%s)
  "$PY" -m pytest -q -p no:cacheprovider -m browser > "browser_loop_$i.out" 2>&1; rc=$?
  kill "$b1" "$b2" 2>/dev/null
  echo "run $i rc=$rc $(( $(date +%s) - start ))s load=$(cut -d' ' -f1 /proc/loadavg) $(tail -1 "browser_loop_$i.out")" >> "$summary"
  [ "$rc" -ne 0 ] && break
done
cat "$summary"
