#!/usr/bin/env bash
# gate.sh - the calibration gate of the second study's tasks at the study's budget (docs/TASKS.md,
# docs/ablation/DESIGN.md), committed before the study runs. Per task, seeds 1-5, each run the
# study's own (its flags, threshold, chance and test from `./report --design`, the one table in
# lab/study/report_outcome_table.c), at one learning rate (the study sweeps it; the gate's rate is the
# table below):
#   - learnable at the budget: with 1/sqrt(dk), for a task whose runs either learn or stay near
#     guessing (test "fisher": lookup, recall) at least 3 of 5 succeed (val_acc >= its threshold);
#     for a task with graded outcomes (test "sign-flip": reverse) at least 4 of 5 end in 0.6-0.9,
#     neither at chance nor at the ceiling;
#   - needs focus: with attention forced uniform (--attn=uniform), every run stays within 0.10 of
#     the task's chance level.
# Calibrated 2026-12-04 (docs/TASKS.md: the same runs on seeds 1-10 with s = 1 and 1/dk beside).
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

# the gate's learning rate per task (the final rate of the cosine schedule a tenth of it, as in
# the study's runs, scripts/ablation.sh)
gate_lr() { case "$1" in lookup) echo 1e-3 ;; reverse) echo 1e-3 ;; recall) echo 3e-4 ;; *) echo "" ;; esac; }

# the study's validation set (scripts/ablation.sh); evaluated at the end only (the evaluations
# between do not change the training: the same numbers)
held_out="--val-size=512 --eval-examples=512 --eval-every=1000"
design=$("$bin/report" --design) || { bad "./report --design" "$design"; echo "$passed passed, $failed failed"; exit 1; }
# one line per task: task, flags, threshold, chance, test (columns of ./report --design)
tasks=$(printf '%s\n' "$design" | awk -F'\t' 'NR > 1 && !seen[$1]++ { print $1 "\t" $7 "\t" $8 "\t" $9 "\t" $10 }')
[ -n "$tasks" ] || bad "./report --design lists no task"

# one run of the gate: TASK ATTENTION SEED LR MIN_LR FLAGS... (ATTENTION: sqrt or uniform); its
# output in $dir, and a line when it ends
gate_run() {
    local task=$1 attention=$2 seed=$3 lr=$4 min_lr=$5 how out
    shift 5
    case $attention in sqrt) how=--scale=sqrt ;; *) how=--attn=uniform ;; esac
    out=$dir/${task}_${attention}_$seed.out
    # shellcheck disable=SC2086
    "$bin/train" --config=configs/ablation.cfg "$@" --optim=adamw --dk=64 --lr="$lr" --min-lr="$min_lr" $how --seed="$seed" \
        $held_out --threads=1 --quiet >"$out" 2>&1
    echo "gate: $task, $attention attention, seed $seed: $(sed -n 's/.* val_acc=\([^ ]*\).*/val_acc \1/p' "$out")"
}
export -f gate_run
export bin dir held_out

# every run of the gate, two at a time
runs=()
while IFS=$'\t' read -r task flags _; do
    lr=$(gate_lr "$task")
    [ -n "$lr" ] || { bad "task $task of the design has no gate rate in tests/gate.sh"; continue; }
    min_lr=$(awk -v x="$lr" 'BEGIN { printf "%g", x / 10 }')
    for seed in 1 2 3 4 5; do
        for attention in sqrt uniform; do runs+=("$task $attention $seed $lr $min_lr $flags"); done
    done
done <<<"$tasks"
echo "gate: ${#runs[@]} runs of 1000 steps, two at a time; a line as each ends"
printf '%s\n' "${runs[@]}" | xargs -d '\n' -P 2 -I{} bash -c 'gate_run {}'

acc() { sed -n 's/.* val_acc=\([^ ]*\).*/\1/p' "$dir/$1_$2_$3.out"; }
while IFS=$'\t' read -r task flags threshold chance test; do
    [ -n "$(gate_lr "$task")" ] || continue
    dot="" uniform=""
    for seed in 1 2 3 4 5; do dot="$dot $(acc "$task" sqrt "$seed")"; uniform="$uniform $(acc "$task" uniform "$seed")"; done
    if [ "$test" = fisher ]; then
        if echo "$dot" | awk -v t="$threshold" '{ n = 0; for (i = 1; i <= NF; i++) n += $i >= t; exit !(NF == 5 && n >= 3) }'; then
            ok "$task at the study's budget: 1/sqrt(dk) succeeds (>= $threshold) on at least 3 of 5 seeds (val_acc:$dot)"
        else
            bad "$task's gate: 1/sqrt(dk) succeeds (>= $threshold) on fewer than 3 of 5 seeds" "val_acc:$dot" "$(tail -n 1 "$dir/${task}_sqrt_1.out")"
        fi
    else
        if echo "$dot" | awk '{ n = 0; for (i = 1; i <= NF; i++) n += $i >= 0.6 && $i <= 0.9; exit !(NF == 5 && n >= 4) }'; then
            ok "$task at the study's budget: 1/sqrt(dk) ends in 0.6-0.9 on at least 4 of 5 seeds (val_acc:$dot)"
        else
            bad "$task's gate: 1/sqrt(dk) ends in 0.6-0.9 on fewer than 4 of 5 seeds" "val_acc:$dot" "$(tail -n 1 "$dir/${task}_sqrt_1.out")"
        fi
    fi
    if echo "$uniform" | awk -v c="$chance" '{ for (i = 1; i <= NF; i++) if ($i > c + 0.10) exit 1; exit !(NF == 5) }'; then
        ok "$task needs focus: uniform attention stays within 0.10 of chance ($chance) on 5 of 5 seeds (val_acc:$uniform)"
    else
        bad "$task's gate: uniform attention got more than 0.10 above chance ($chance)" "val_acc:$uniform"
    fi
done <<<"$tasks"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
