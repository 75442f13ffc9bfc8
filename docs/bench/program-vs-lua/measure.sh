#!/bin/bash
# Program bots against the same logic in Lua (docs/performance.md, "Program bots against
# Lua, game by game"): plays GAME's pair from this directory as a small tournament,
# Python and Lua runs alternating, and prints the CPU time of each run's whole process
# tree (user and system) from a control group of its own (cgroup v1 cpuacct, else v2).
# Needs root for the control group.
#
#   docs/bench/program-vs-lua/measure.sh ARENA GAME RUNS ROUNDS ISOLATE
#   e.g. measure.sh target/release/arena target 2 1 off
set -eu
arena=$(realpath "$1"); game=$2; runs=$3; rounds=$4; isolate=$5
here=$(dirname "$(realpath "$0")")
extra=()
[ "$game" = target ] && extra=(--set max_rounds=2000)
work=$(mktemp -d)
chmod 755 "$work" # the boxes run as users of their own
trap 'rm -rf "$work"' EXIT
for kind in py lua; do
  mkdir -p "$work/$kind"
  src=$(ls "$here/$game"/*."$kind")
  for i in 1 2 3 4; do
    cp "$src" "$work/$kind/$(basename "${src%.*}")$i.$kind"
  done
  chmod +x "$work/$kind"/*
done
if [ -d /sys/fs/cgroup/cpuacct ]; then v1=1; base=/sys/fs/cgroup/cpuacct; else v1=0; base=/sys/fs/cgroup; fi
hz=$(getconf CLK_TCK)
for run in $(seq 1 "$runs"); do
  for kind in py lua; do
    cg=$base/program-vs-lua-$$-$run-$kind
    mkdir "$cg"
    bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$cg" \
      "$arena" --game "$game" --scripts "$work/$kind" tournament --rounds "$rounds" --jobs 1 \
      --isolate "$isolate" --seed "$run" "${extra[@]}" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
    if [ $v1 = 1 ]; then
      read -r _ user _ sys < <(tr "\n" " " < "$cg/cpuacct.stat") || true
      user=$(echo "scale=2; $user / $hz" | bc); sys=$(echo "scale=2; $sys / $hz" | bc)
    else
      user=$(awk '$1 == "user_usec" { printf "%.2f", $2 / 1e6 }' "$cg/cpu.stat")
      sys=$(awk '$1 == "system_usec" { printf "%.2f", $2 / 1e6 }' "$cg/cpu.stat")
    fi
    errors=$(awk '$1 ~ /^[0-9]+$/ && NF > 10 { e += $(NF - 2) } END { print e + 0 }' "$work/out")
    echo "$game $isolate $kind run $run: user $user s, system $sys s, $errors call errors (load $(cut -d' ' -f1 /proc/loadavg))"
    rmdir "$cg"
  done
done
