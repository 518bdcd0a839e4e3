#!/usr/bin/env bash
# law_tiers.sh - scripts/ablation.sh's tiers of the law experiment (--law-budget, --law-calibrate, --law, --law-robust)
# and of "fails, or slower?" (--slower), followed with a stand-in for ./train: which runs each tier plans, the budget it settles on, that
# an interrupted tier resumes, and that ./report's law.md is what decides (docs/ablation/DESIGN.md,
# "Pre-registration: the law"). The real runs take hours; the stand-in takes none.
#
#   tests/law_tiers.sh BIN_DIR      BIN_DIR holds report (e.g. .)
set -u
bin=${1:?usage: tests/law_tiers.sh BIN_DIR}
# the scratch folder and the stand-in for ./train (tests/stand_in_train.sh: c* = 1 at every dk,
# sigma0 = sqrt(dk)), every call logged in $dir/calls
. "$(dirname "$0")/tiers_setup.sh" law_tiers "$bin"
# (--record none: the tiers' committed record of docs/ablation/ is not this test's)
abl() { TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" "$@" --record none; }
out=$dir/law

# --law-budget: (1000, 1e-3) and (1000, 3e-4) fail at dk 16 (nothing learns) and never run dk
# 1024; (2000, 1e-3) qualifies at both: 3 x 40 + 40 runs, 160 in all
abl --law-budget --out "$out" --jobs 2 >"$dir/budget.out" 2>&1
rc=$?
calls=$(wc -l <"$dir/calls")
if [ "$rc" = 0 ] && [ "$(tail -n 1 "$out/law_budget.tsv")" = "2000	0.001" ] && [ "$calls" = 160 ] &&
    [ "$(grep -c -- '--dk=1024' "$dir/calls")" = 40 ] && ! grep -- '--dk=1024' "$dir/calls" | grep -q -- '--steps=1000 --log' &&
    [ "$(grep -c 'does not qualify at dk 16' "$dir/budget.out")" = 2 ]; then
    ok "--law-budget: candidates in order, dk 1024 only after dk 16 qualifies; 2000 steps at 1e-3 chosen (160 runs)"
else
    bad "--law-budget" "exit $rc, $calls runs, budget $(tail -n 1 "$out/law_budget.tsv" 2>&1)" "$(grep -v '^\[' "$dir/budget.out" | head -n 8)"
fi
# each run: both inits, the c grid 1/32 .. 16 as --scale = sqrt(dk)/c, its steps and rate
if grep -q -- '--scale=128 --dk=16 --lr=0.001 --min-lr=0.0001 --seed=201 --qk-init=unit --steps=2000' "$dir/calls" &&
    grep -q -- '--scale=0.25 --dk=16 --lr=0.0003 --min-lr=3e-05 --seed=202 --qk-init=xavier --steps=1000' "$dir/calls" &&
    [ "$(grep -- '--dk=16 ' "$dir/calls" | grep -c -- '--steps=2000 ')" = 40 ]; then
    ok "--law-budget's runs: c = 1/32 (scale 128) .. 16 (scale 1/4) at dk 16, both inits, seeds 201 and 202"
else
    bad "--law-budget's commands" "$(head -n 2 "$dir/calls")"
fi
if grep -q '## cal: 2000 steps at lr 0.001' "$out/law.md" && grep -q 'qk-init=xavier' "$out/law.md"; then
    ok "law.md judges the calibration (the rule in one place: lab/study/report_law.c)"
else
    bad "law.md after --law-budget" "$(head -n 3 "$out/law.md" 2>&1)"
fi
# again: nothing to do, the same budget
: >"$dir/calls"
abl --law-budget --out "$out" >"$dir/again.out" 2>&1
if [ ! -s "$dir/calls" ] && grep -q "the law's budget: 2000 steps at lr 0.001" "$dir/again.out"; then ok "--law-budget again: resumes, runs nothing"; else
    bad "--law-budget resumes" "$(wc -l <"$dir/calls") runs"; fi
# a new session: its results folder is gone, the record (runs.csv) committed: nothing is run again, and the
# report, merged with the record, chooses the same budget
cp "$out/runs.csv" "$dir/record.csv"
: >"$dir/calls"
TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" --law-budget --out "$dir/law_next" --record "$dir/record.csv" >"$dir/next.out" 2>&1
if [ ! -s "$dir/calls" ] && [ "$(tail -n 1 "$dir/law_next/law_budget.tsv" 2>&1)" = "2000	0.001" ] && cmp -s "$dir/law_next/law.md" "$out/law.md"; then
    ok "--record: a tier resumes from a committed runs.csv (no run again, the same budget and law.md)"
else
    bad "--record" "$(wc -l <"$dir/calls") runs" "$(grep -v '^\[' "$dir/next.out" | tail -n 3)"
fi
# --law-calibrate: the other five dk at that budget (5 x 40 runs), then the report; an interrupted
# tier (a run without its .out) redoes only that run
abl --law-calibrate --out "$out" >"$dir/cal.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -l <"$dir/calls")" = 200 ] && grep -q 'α per seed .*201: 0.500; 202: 0.500' "$out/law.md" &&
    grep -q 'n = [0-9]* seeds' "$out/law.md" && [ -f "$out/law.svg" ]; then
    ok "--law-calibrate: every dk at the budget (200 more runs); law.md's alpha per seed 0.5 (c* = 1 everywhere), the seeds"
else
    bad "--law-calibrate" "exit $rc, $(wc -l <"$dir/calls") runs" "$(grep 'α per seed' "$out/law.md" 2>&1 | head -n 2)" "$(tail -n 3 "$dir/cal.out")"
fi
: >"$dir/calls"
rm "$out/runs/cal_lookup_adamw_s-2.82842712_dk128_lr0.001_seed201_qk-init-unit+steps-2000.out"
abl --law-calibrate --out "$out" >/dev/null 2>&1
if [ "$(wc -l <"$dir/calls")" = 1 ] && grep -q -- '--scale=2.82842712 --dk=128' "$dir/calls"; then ok "an interrupted --law-calibrate redoes only the missing run"; else
    bad "--law-calibrate resumes" "$(wc -l <"$dir/calls") runs"; fi
# --law: seeds within the n the calibration sized (with c* = 1 everywhere the calibration seeds' alphas agree: sd
# 0.25 assumed, 7 seeds: 301-307); a tier of two of them, 2 x 7 dk x 20 runs; the report's tests then exist
n=$(grep -o 'n = [0-9]* seeds' "$out/law.md" | head -n 1)
msg=$(abl --law --seeds 301-308 --out "$out" 2>&1)
rc=$?
: >"$dir/calls"
abl --law --seeds 301-302 --out "$out" >"$dir/law.out" 2>&1
if [ "$n" = "n = 7 seeds" ] && [ "$rc" = 2 ] && printf '%s' "$msg" | grep -q "the experiment's seeds are 301-307" &&
    [ "$(wc -l <"$dir/calls")" = 280 ] && grep -q '^## law: 2000 steps at lr 0.001' "$out/law.md" && grep -q '^### The pre-registered tests' "$out/law.md"; then
    ok "--law --seeds: within the calibration's n (7; 301-308 refused), 280 runs for 2 seeds, law.md's tests"
else
    bad "--law" "$n; exit $rc: $msg" "$(wc -l <"$dir/calls") runs" "$(tail -n 2 "$dir/law.out")"
fi
msg=$(abl --law --out "$out" 2>&1)
if [ $? = 2 ] && printf '%s' "$msg" | grep -q -- '--law needs --seeds'; then ok "--law without --seeds: refused"; else bad "--law without --seeds" "$msg"; fi
# --law-robust: the c grid at half and twice the budget's rate (5e-4, 2e-3), dk 16, 128 and 1024, unit init
# only, seeds within 301-305: 2 seeds x 2 rates x 3 dk x 10 c = 120 runs; law.md has a group per rate
msg=$(abl --law-robust --seeds 301-306 --out "$out" 2>&1)
rc=$?
: >"$dir/calls"
abl --law-robust --seeds 304-305 --out "$out" >"$dir/robust.out" 2>&1
rrc=$?
if [ "$rc" = 2 ] && printf '%s' "$msg" | grep -q "the robustness arm's seeds are 301-305" && [ "$rrc" = 0 ] &&
    [ "$(wc -l <"$dir/calls")" = 120 ] && [ "$(grep -c -- '--qk-init=unit' "$dir/calls")" = 120 ] &&
    [ "$(grep -c -- '--lr=0.0005 --min-lr=5e-05 --seed=30[45] --qk-init=unit --steps=2000' "$dir/calls")" = 60 ] &&
    [ "$(grep -c -- '--dk=128 --lr=0.002 ' "$dir/calls")" = 20 ] && ! grep -q -- '--dk=64 ' "$dir/calls" &&
    grep -q '^## robust: 2000 steps at lr 0.0005' "$out/law.md" && grep -q '^## robust: 2000 steps at lr 0.002' "$out/law.md"; then
    ok "--law-robust --seeds: half and twice the rate at dk 16, 128, 1024, unit init, 120 runs for 2 seeds (301-306 refused); law.md's groups"
else
    bad "--law-robust" "exit $rc: $msg" "exit $rrc, $(wc -l <"$dir/calls") runs" "$(tail -n 2 "$dir/robust.out")"
fi
msg=$(abl --law-robust --out "$out" 2>&1)
if [ $? = 2 ] && printf '%s' "$msg" | grep -q -- '--law-robust needs --seeds'; then ok "--law-robust without --seeds: refused"; else bad "--law-robust without --seeds" "$msg"; fi
# a new session again, at --law: the budget and the seeds' n come from the record and its law_budget.tsv alone
mkdir -p "$dir/rec2"
cp "$out/runs.csv" "$out/law_budget.tsv" "$dir/rec2/"
: >"$dir/calls"
TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" --law --seeds 301-302 --out "$dir/law_new" --record "$dir/rec2/runs.csv" >"$dir/new.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$dir/calls" ] && grep -q '^## law: 2000 steps at lr 0.001' "$dir/law_new/law.md"; then
    ok "--law in a new session: budget and seeds from the record (law_budget.tsv beside it), nothing run again"
else
    bad "--law from the record alone" "exit $rc, $(wc -l <"$dir/calls") runs" "$(grep -v '^\[' "$dir/new.out" | tail -n 3)"
fi
# --law-standard: seed 301's runs under unit init at dk 16 and 1024 again (20), each as the record has it; a record whose
# row differs is caught. One at a time, the first taking a second, the rest none: the time left after it weighs the runs
# by steps x (dk + 128), so 9 more at dk 16 and 10 at 1024 are 88.8 times the first (1 or 2 s elapsed: 88 to 177 s);
# counting runs alike would say 19 to 38 s
mkdir -p "$dir/rec"
cp "$out/runs.csv" "$dir/rec/runs.csv"
cp "$out/law_budget.tsv" "$dir/rec/"
: >"$dir/calls"
STAND_IN_SLOW_FIRST=1 TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" --law-standard --jobs 1 --out "$dir/std" --record "$dir/rec/runs.csv" >"$dir/std.out" 2>&1
rc=$?
left=$(grep -m 1 '^\[.* 1/20\]' "$dir/std.out" | sed 's/.*about \([0-9]*\) min \([0-9]*\) s left.*/\1 \2/' | awk '{ print $1 * 60 + $2 }')
if [ -n "$left" ] && [ "$left" -ge 88 ] && [ "$left" -le 177 ]; then
    ok "the time left weighs each run by steps x (dk + 128): $left s after the first of 20 (counting runs alike: 19 to 38 s)"
else
    bad "the time left, weighted" "$(grep -m 1 '1/20\]' "$dir/std.out")"
fi
if [ "$rc" = 0 ] && [ "$(wc -l <"$dir/calls")" = 20 ] && grep -q 'law standard: 20 of 20 runs as recorded' "$dir/std.out" &&
    [ "$(grep -c -- '--qk-init=unit' "$dir/calls")" = 20 ] && [ "$(grep -c -- '--seed=301 ' "$dir/calls")" = 20 ]; then
    ok "--law-standard: seed 301, unit init, dk 16 and 1024, 20 runs, each as recorded"
else
    bad "--law-standard" "exit $rc, $(wc -l <"$dir/calls") runs" "$(grep -v '^\[' "$dir/std.out" | tail -n 3)"
fi
sed -i '/^law_lookup_adamw_s-4_dk16_lr0.001_seed301_qk-init-unit+steps-2000,/s/,0.5,300,/,0.5,310,/' "$dir/rec/runs.csv"
rm -rf "$dir/std"
TRAIN="$dir/train" REPORT="$report" "$root/scripts/ablation.sh" --law-standard --out "$dir/std" --record "$dir/rec/runs.csv" >"$dir/std2.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'law standard: 19 of 20 runs as recorded' "$dir/std2.out" && grep -q 'differs from the record: law_lookup_adamw_s-4_dk16' "$dir/std2.out"; then
    ok "--law-standard: a run that differs from the record is named, exit 1"
else
    bad "--law-standard catches a difference" "exit $rc" "$(grep -v '^\[' "$dir/std2.out" | tail -n 3)"
fi
# --slower: the primaries' failing cells at dk 64 and 1/sqrt(dk), 5000 steps, at the rates of
# docs/ablation/best_lr.tsv: 4 x 15 on lookup, 3 x 22 on reverse
: >"$dir/calls"
abl --slower --out "$dir/slower" >"$dir/slower.out" 2>&1
rc=$?
cells=$(awk -F'\t' 'NR > 1 { print $3, $5, $7, $9 }' "$dir/slower/jobs.tsv" | sort | uniq -c | awk '{ printf "%s %s %s %s %s;", $1, $2, $3, $4, $5 }')
want="15 lookup 1 0.001 steps=5000;15 lookup dk 0.003 steps=5000;15 lookup none 0.003 attn=additive,steps=5000;15 lookup sqrt 0.0003 steps=5000;22 reverse 1 0.001 steps=5000;22 reverse dk 0.003 steps=5000;22 reverse sqrt 0.003 steps=5000;"
if [ "$rc" = 0 ] && [ "$cells" = "$want" ] && [ "$(grep -c -- '--dk=64 .*--steps=5000 --log' "$dir/calls")" = 126 ] &&
    [ "$(grep -c -- '--attn=additive' "$dir/calls")" = 15 ]; then
    ok "--slower: 7 cells at dk 64, 5000 steps, the second study's rates, 15 seeds (lookup) and 22 (reverse)"
else
    bad "--slower" "exit $rc: $cells" "$(tail -n 2 "$dir/slower.out")"
fi
# refusals: a second-study flag with a law tier; --law-calibrate before the budget
msg=$(abl --law-budget --phase 1 --out "$dir/x" 2>&1)
if [ $? = 2 ] && printf '%s' "$msg" | grep -q -- '--phase is for the second study'; then ok "--law-budget --phase: refused"; else bad "--phase refused" "$msg"; fi
msg=$(abl --law-calibrate --out "$dir/empty" 2>&1)
if [ $? = 2 ] && printf '%s' "$msg" | grep -q 'run --law-budget first'; then ok "--law-calibrate before --law-budget: refused"; else bad "--law-calibrate refused" "$msg"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
