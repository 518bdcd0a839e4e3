#!/usr/bin/env bash
# claims.sh - the extra runs behind some claims of docs/ABLATION.md that the scale study does not
# cover (docs/ablation/claims.md; its SGD rows, one rate for every scale, are superseded by the
# study's per-scale sweeps). Prints a Markdown table. Takes a few minutes on 2 cores.
#
#   scripts/claims.sh [--quick]     (--quick: fewer steps, for testing the script)
#
# 1. Xavier gain 2 on every weight: how much larger are the scores at initialisation?
# 2. s = 10 (--scale=0.1) at dk = 512: does anything overflow in float32?
# 3. s = 1/dk at dk = 1024: NaN?
# 4. SGD instead of AdamW: does the scale matter more when the step follows the raw gradient?
set -euo pipefail
cd "$(dirname "$0")/.."
train=${TRAIN:-./train}
steps=300
[ "${1:-}" = "--quick" ] && steps=20
[ -x "$train" ] || { echo "error: $train is not built (run make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { grep '^summary:' "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }
# column NAME of the first data row of a CSV log
first() { grep -v '^#' "$1" | awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } NR == 2 { print $k }'; }

base=(--config=configs/ablation.cfg --task=copy --seed=1 --threads=2 --quiet)

echo "| experiment | setting | result |"
echo "|---|---|---|"
for g in 1 2; do
    "$train" "${base[@]}" --dk=64 --scale=1 --init-gain=$g --stop-at=1 --log="$tmp/gain$g.csv" >/dev/null
done
s1=$(first "$tmp/gain1.csv" l0_score_std)
s2=$(first "$tmp/gain2.csv" l0_score_std)
echo "| Xavier gain 2 vs 1, raw scores (s = 1), dk = 64, at init | std of q.k, layer 0 | gain 1: $s1; gain 2: $s2; ratio $(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.2f", b / a }') |"

"$train" "${base[@]}" --dk=512 --scale=0.1 --steps="$steps" --log="$tmp/big.csv" >"$tmp/big.out"
maxstd=$(grep -v '^#' "$tmp/big.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "l0_score_std") k = i; next } { if ($k > m) m = $k } END { print m }')
echo "| s = 10 (--scale=0.1), dk = 512, $steps steps | NaN steps, val acc, largest layer-0 score std | $(field "$tmp/big.out" nan_count), $(field "$tmp/big.out" val_acc), $maxstd |"

"$train" "${base[@]}" --dk=1024 --heads=1 --scale=dk --steps="$steps" >"$tmp/dk.out"
echo "| s = 1/dk, dk = 1024 (1 head), $steps steps | NaN steps, val acc | $(field "$tmp/dk.out" nan_count), $(field "$tmp/dk.out" val_acc) |"

for s in 1 sqrt dk; do
    "$train" "${base[@]}" --dk=64 --scale=$s --optim=sgd --lr=0.3 --min-lr=0.03 --steps="$steps" --log="$tmp/sgd$s.csv" >"$tmp/sgd$s.out"
    echo "| SGD (lr 0.3), dk = 64, --scale=$s, $steps steps | val acc, final loss, Wq grad norm at init | $(field "$tmp/sgd$s.out" val_acc), $(field "$tmp/sgd$s.out" final_loss), $(first "$tmp/sgd$s.csv" l0_gnorm_wq) |"
done
