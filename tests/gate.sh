#!/usr/bin/env bash
# gate.sh - the calibration gate of the lookup task at the second study's budget (docs/TASKS.md,
# docs/ablation/DESIGN.md), committed before the study runs: with 1/sqrt(dk), at least 3 of
# seeds 1-5 succeed (val_acc >= 0.5, the task's success threshold, study/report_outcome_table.c)
# - the task is learnable at the budget; with attention forced uniform (--attn=uniform), none
# does and every run stays near guessing (val_acc <= 0.15; guessing is 0.046) - the task needs
# focus. Calibrated 2026-12-04: 1/sqrt(dk) succeeded on 4 of seeds 1-5 (8 of 1-10), uniform on none.
#
#   tests/gate.sh BIN_DIR     prints "N passed, N failed"; exit 1 when one failed
set -u
bin=$(cd "${1:?usage: tests/gate.sh BIN_DIR}" && pwd)
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# the budget: one place, the row of lookup in docs/ablation/DESIGN.md says the same
budget=(--config=configs/ablation.cfg --task=lookup --dk=64 --min-len=3 --max-len=8 --lookup-queries=2 --lr=1e-3 --steps=1000 --threads=1 --quiet)
run() { "$bin/train" "${budget[@]}" "$1" --seed="$2" >"$dir/$3_$2.out" 2>&1; }
for seed in 1 2 3 4 5; do
    run --scale=sqrt "$seed" dot &
    run --attn=uniform "$seed" uniform
    wait
done
acc() { sed -n 's/.* val_acc=\([^ ]*\).*/\1/p' "$dir/$1_$2.out"; }
dot="" uniform=""
for seed in 1 2 3 4 5; do dot="$dot $(acc dot "$seed")"; uniform="$uniform $(acc uniform "$seed")"; done
if echo "$dot" | awk '{ n = 0; for (i = 1; i <= NF; i++) n += $i >= 0.5; exit !(NF == 5 && n >= 3) }'; then
    ok "lookup at the study's budget: 1/sqrt(dk) succeeds on at least 3 of 5 seeds (val_acc:$dot)"
else
    bad "lookup's gate: 1/sqrt(dk) succeeds on fewer than 3 of 5 seeds" "val_acc:$dot" "$(tail -n 1 "$dir/dot_1.out")"
fi
if echo "$uniform" | awk '{ for (i = 1; i <= NF; i++) if ($i > 0.15) exit 1; exit !(NF == 5) }'; then
    ok "lookup needs focus: uniform attention stays near guessing on 5 of 5 seeds (val_acc:$uniform; guessing 0.046)"
else
    bad "lookup's gate: uniform attention got above 0.15" "val_acc:$uniform"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
