#!/usr/bin/env bash
# build_speeds.sh - the README's first job (`./train`, the default run) in several builds,
# timed side by side in one run on this machine, so the builds' speeds can be compared.
#
#   scripts/build_speeds.sh [BIN_DIR ...]      default: . build/v2 build/clang build/noomp
#
# Make the builds first (docs/PERFORMANCE.md, "Builds"):
#   make && make ARCH=-march=x86-64-v2 BUILD=build/v2 && make CC=clang BUILD=build/clang &&
#   make OPENMP=0 BUILD=build/noomp
# Each build's ./train runs ROUNDS times (default 3), the builds taking turns, and the best
# wall time is kept (other programs only ever slow a run down). Prints a Markdown table with
# each build's time and its ratio to the first folder's, and the machine, date and command.
# Every run also saves a checkpoint; the table says whether its bytes equal the first build's.
set -u
[ $# -gt 0 ] || set -- . build/v2 build/clang build/noomp
rounds=${ROUNDS:-3}
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "error: ROUNDS=$rounds: give a count from 1 to 99" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
abs=()
for b in "$@"; do
    [ -x "$b/train" ] || { echo "error: no $b/train (build it first: see the comment at the top of $0)" >&2; exit 2; }
    abs+=("$(cd "$b" && pwd)")
done

declare -A best
for ((r = 0; r < rounds; r++)); do
    i=0
    for b in "$@"; do
        start=$(date +%s.%N)
        if ! (cd "$dir" && "${abs[$i]}/train" --quiet --save="$i.st" >"$i.out" 2>&1); then
            echo "error: $b/train failed: $(tail -n 1 "$dir/$i.out")" >&2
            exit 1
        fi
        t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
        if [ -z "${best[$i]:-}" ] || awk -v t="$t" -v m="${best[$i]}" 'BEGIN { exit !(t < m) }'; then best[$i]=$t; fi
        i=$((i + 1))
    done
done

cpu=$(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo "$(nproc) cores, $cpu, $(date -u +%Y-%m-%d); scripts/build_speeds.sh $*; best of $rounds"
echo
echo "| build | ./train (s) | vs $1 | checkpoint |"
echo "|---|---:|---:|---|"
i=0
for b in "$@"; do
    same=$(cmp -s "$dir/0.st" "$dir/$i.st" && echo "same bytes" || echo "DIFFERS")
    awk -v b="$b" -v t="${best[$i]}" -v t0="${best[0]}" -v s="$same" 'BEGIN { printf "| %s | %.2f | %.2fx | %s |\n", b, t, t / t0, s }'
    i=$((i + 1))
done
