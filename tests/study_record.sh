#!/usr/bin/env bash
# study_record.sh - the second study resumed from its committed record with more sweep seeds
# (scripts/ablation.sh --full --record FILE; docs/ablation/DESIGN.md, the amendment of
# 2026-12-07 on 5 sweep seeds per rate for lookup and recall), followed with a stand-in for
# ./train (tests/stand_in_train.sh): the runs it plans, the rates the sweeps then choose, and that
# ./report takes each cell's test runs at the rate its sweep chose when a cell has runs at two.
#
#   tests/study_record.sh BIN_DIR      BIN_DIR holds report (e.g. .)
set -u
bin=${1:?usage: tests/study_record.sh BIN_DIR}
. "$(dirname "$0")/tiers_setup.sh" study_record "$bin" # the scratch folder, the stand-in at $dir/train
abl() { TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" "$@"; }
# the rows of a runs.csv without their quoted fields (the command names the folder), sorted
rows() { sed 's/"[^"]*"//g' "$1" | sort; }
# chosen DIR TASK: the distinct chosen rates of TASK's cells in DIR/best_lr.tsv
chosen() { awk -F'\t' -v t="$2" '$1 == t { print $10 }' "$1/best_lr.tsv" | sort -u | tr '\n' ' '; }

# The whole study with the stand-in: every sweep chooses 1e-3 (interior at once): phase 1 plans
# 14 cells x 3 rates x 5 seeds on lookup and recall, x 3 seeds on reverse (546), phase 2 42 x 10
abl --full --out "$dir/all" --jobs 2 >"$dir/all.out" 2>&1
rc=$?
seeds_lookup=$(grep -- '--task=lookup' "$dir/calls" | grep -o -- '--seed=10[0-9]' | sort -u | tr '\n' ' ')
seeds_reverse=$(grep -- '--task=reverse' "$dir/calls" | grep -o -- '--seed=10[0-9]' | sort -u | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$(wc -l <"$dir/calls")" = 966 ] && [ "$seeds_lookup" = "--seed=101 --seed=102 --seed=103 --seed=104 --seed=105 " ] &&
    [ "$seeds_reverse" = "--seed=101 --seed=102 --seed=103 " ] && [ "$(chosen "$dir/all" lookup)" = "0.001 " ]; then
    ok "--full: sweeps of 5 seeds per rate on lookup and recall, 3 on reverse (the design's sweep_seeds); 546 + 420 runs"
else
    bad "--full with the stand-in" "exit $rc, $(wc -l <"$dir/calls") runs; lookup $seeds_lookup; reverse $seeds_reverse; chosen $(chosen "$dir/all" lookup)" "$(tail -n 3 "$dir/all.out")"
fi

# The record of a study swept with 3 seeds: the same runs without seeds 104 and 105
grep -v '^lr_[a-z]*_adamw_.*_seed10[45][_,]' "$dir/all/runs.csv" >"$dir/record.csv"
# resumed from it, the same stand-in: only seeds 104 and 105 of lookup's and recall's sweeps run (28
# cells x 3 rates x 2), no rate moves, no test run; the merged runs.csv is the whole study's
: >"$dir/calls"
abl --full --record "$dir/record.csv" --out "$dir/same" --jobs 2 >"$dir/same.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -l <"$dir/calls")" = 168 ] && ! grep -q -- '--seed=10[123] \|--task=reverse\|--seed=1[1-9] \|--seed=20 ' "$dir/calls" &&
    [ "$(rows "$dir/same/runs.csv")" = "$(rows "$dir/all/runs.csv")" ] && cmp -s "$dir/same/best_lr.tsv" "$dir/all/best_lr.tsv"; then
    ok "--full --record: only the sweeps' seeds 104-105 of lookup and recall run (168); runs.csv and best_lr.tsv as the whole study's"
else
    bad "--full --record (no rate moves)" "exit $rc, $(wc -l <"$dir/calls") runs" "$(tail -n 3 "$dir/same.out")"
fi

# resumed again where seeds 104 and 105 prefer 3e-3: lookup's and recall's sweeps now choose 3e-3, at
# their edge, so round 2 adds 1e-2 (28 x 5), then each of their cells runs its 10 test seeds at 3e-3
# (280): 168 + 140 + 280 runs. The report takes those cells' test runs at 3e-3, not the record's at 1e-3.
: >"$dir/calls"
STAND_IN_LATE_SEEDS=3e-3 abl --full --record "$dir/record.csv" --out "$dir/moved" --jobs 2 >"$dir/moved.out" 2>&1
rc=$?
at_new=$(awk -F'|' '$2 ~ /test/ && $3 ~ /lookup/ { gsub(/ /, "", $7); print $7 }' "$dir/moved/outcomes.md" | sort -u | tr '\n' ' ')
at_reverse=$(awk -F'|' '$2 ~ /test/ && $3 ~ /reverse/ { gsub(/ /, "", $7); print $7 }' "$dir/moved/outcomes.md" | sort -u | tr '\n' ' ')
old_kept=$(grep -c '^test_lookup_adamw_.*_lr0.001_seed' "$dir/moved/runs.csv")
if [ "$rc" = 0 ] && [ "$(wc -l <"$dir/calls")" = 588 ] && [ "$(grep -c -- '--lr=0.01 ' "$dir/calls")" = 140 ] &&
    [ "$(chosen "$dir/moved" lookup)" = "0.003 " ] && [ "$(chosen "$dir/moved" reverse)" = "0.001 " ] &&
    [ "$at_new" = "0.003 " ] && [ "$at_reverse" = "0.001 " ] && [ "$old_kept" = 140 ]; then
    ok "--full --record where the 5-seed sweeps choose another rate: 1e-2 swept, test runs at 3e-3 (588 runs); outcomes.md's cells at 3e-3, the record's at 1e-3 kept in runs.csv"
else
    bad "--full --record (rates move)" "exit $rc, $(wc -l <"$dir/calls") runs; chosen $(chosen "$dir/moved" lookup); cells at $at_new / $at_reverse; old test rows $old_kept" "$(tail -n 3 "$dir/moved.out")"
fi
msg=$(abl --standard --record "$dir/record.csv" --out "$dir/x" 2>&1)
if [ $? = 2 ] && printf '%s' "$msg" | grep -q -- '--record is for --full'; then ok "--standard --record: refused"; else bad "--standard --record" "$msg"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
