#!/usr/bin/env bash
# report.sh - end-to-end tests of ./report on synthetic result folders (jobs.tsv and run
# outputs written here, no training): merging shards, refusing conflicts and bad input,
# regenerating the tables from runs.csv alone, and known statistics in the tables; and on the
# logs of a few short ./train runs: one run or several at a glance.
# Prints "N passed, N failed".
#
#   tests/report.sh BIN_DIR      the folder holding report and train (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/report.sh BIN_DIR}
report=$(cd "$bin" && pwd)/report
train=$(cd "$bin" && pwd)/train
dir=${TEST_TMPDIR:-$(mktemp -d)}/report
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 2
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }
# refuse NAME PATTERN ARGS...: report ARGS must exit 2 with a message matching PATTERN
refuse() {
    local name=$1 pattern=$2 rc
    shift 2
    timeout 10 "$report" "$@" >out.txt 2>err.txt
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pattern" err.txt && [ "$(wc -l <err.txt)" -eq 1 ]; then ok "$name"; else
        bad "$name" "exit $rc (want 2; 124: it hung)" "$(head -c 400 err.txt)"; fi
}

# ---------------------------------------------------------------- a synthetic study
# job ID STAGE SCALE DK LR SEED VARIANT: one planned run of task sort with AdamW
jobs=()
job() { jobs+=("$1	$2	sort	adamw	$3	$4	$5	$6	$7	./train --task=sort --scale=$3 --dk=$4 --lr=$5 --seed=$6 --log=runs/$1.csv"); }
header="id	stage	task	optim	scale	dk	lr	seed	variant	command"
# write_jobs FOLDER FIRST LAST: jobs.tsv with the jobs FIRST..LAST (0-based) of the list
write_jobs() {
    mkdir -p "$1/runs"
    { echo "$header"; for ((i = $2; i <= $3; i++)); do echo "${jobs[$i]}"; done; } >"$1/jobs.tsv"
}
# finish FOLDER ID VAL_ACC TEST_ACC [TIME [FP_OVERFLOWS]]: the run's console output and its log
# (the run var_qkinitunit_s1 had 3 NaN steps)
finish() {
    local nans=0
    [ "$2" = var_qkinitunit_s1 ] && nans=3
    printf 'task sort: training examples generated per step, 512 held out; 26 positions, vocabulary 20\nstep 20 loss 0.5\nsummary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=%s steps_to_threshold=-1 nan_count=%s fp_overflows=%s fp_underflows=0 fp_nans=0 test_loss=0.45 test_acc=%s test_examples=1000 new_field=7 time_s=%s\n' \
        "$3" "$nans" "${6:-0}" "$4" "${5:-1.5}" >"$1/runs/$2.out"
    printf 'step,loss,l0_score_std,l1_score_std,l0_qgrad_median,l1_qgrad_median,l0_jac_median,l1_jac_median,l0_gnorm_wq,l1_gnorm_wq,l0_entropy_norm,l1_entropy_norm,val_loss,val_acc,nan_count\n1,3.0,1.0,1.2,0.002,0.004,0.4,0.2,0.5,0.3,1,1,,,0\n10,1.0,2.0,2.2,0.001,0.003,0.3,0.1,0.2,0.2,0.95,0.99,,,0\n20,0.5,3.0,3.4,0.0005,0.0015,0.2,0.1,0.1,0.1,0.8,1.0,0.4,%s,0\n' "$3" >"$1/runs/$2.csv"
    # a learned multiplier also logs s·sqrt(dk) per layer: at the end 0.8, 1.0 (seed 1) and 1.1, 1.3 (seed 2)
    case $2 in
    scales_learned_s1) learned_log "$1/runs/$2.csv" "$3" 0.8 1.0 ;;
    scales_learned_s2) learned_log "$1/runs/$2.csv" "$3" 1.1 1.3 ;;
    esac
}
# learned_log FILE VAL_ACC L0_END L1_END
learned_log() {
    printf 'step,loss,l0_score_std,l1_score_std,l0_scale_x_sqrt_dk,l1_scale_x_sqrt_dk,val_loss,val_acc,nan_count\n1,3.0,1.0,1.2,1,1,,,0\n20,0.5,3.0,3.4,%s,%s,0.4,%s,0\n' "$3" "$4" "$2" >"$1"
}

# stage lr: scales 1, sqrt, dk x dk 16, 64 x lr 1e-3, 3e-3 x seeds 1, 2 (jobs 0..23)
for scale in 1 sqrt dk; do
    for dk in 16 64; do
        for lr in 1e-3 3e-3; do
            for seed in 1 2; do job "lr_${scale}_dk${dk}_lr${lr}_s$seed" lr "$scale" "$dk" "$lr" "$seed" -; done
        done
    done
done
# stage headline at dk 64: 5 seeds per scale (jobs 24..38), one more seed of sqrt that is
# never run (job 39), and dk 16 at the ceiling (jobs 40..42)
for scale in sqrt dk 1; do for seed in 1 2 3 4 5; do job "head_${scale}_dk64_s$seed" headline "$scale" 64 1e-3 "$seed" -; done; done
job head_sqrt_dk64_s6 headline sqrt 64 1e-3 6 -
for seed in 1 2 3; do job "head_sqrt_dk16_s$seed" headline sqrt 16 1e-3 "$seed" -; done
# stage variants (jobs 43..48): cosine attention (no scale) and unit-variance q, k, against the
# plain model of stage headline; stage scales (jobs 49..51): s = 1/8, against headline's 1/sqrt(dk)
for seed in 1 2 3; do job "var_attncosine_s$seed" variants none 64 1e-3 "$seed" attn=cosine; done
for seed in 1 2 3; do job "var_qkinitunit_s$seed" variants sqrt 64 1e-3 "$seed" qk-init=unit; done
for seed in 1 2 3; do job "scales_8_s$seed" scales 8 64 1e-3 "$seed" -; done
# and a learned multiplier from 1/sqrt(dk), 2 seeds (jobs 52, 53)
for seed in 1 2; do job "scales_learned_s$seed" scales learned-sqrt 64 1e-3 "$seed" -; done
n_jobs=${#jobs[@]}

# the results: val_acc, test_acc of each job (index: the job's place in the list)
results=()
# lr: the scale-1 cells tie at both rates (the smaller, 1e-3, must win); sqrt prefers 3e-3
lr_vals=(0.50 0.50 0.50 0.50 0.40 0.40 0.40 0.40   0.60 0.62 0.70 0.72 0.55 0.57 0.65 0.67   0.30 0.32 0.20 0.22 0.35 0.37 0.25 0.27)
for ((i = 0; i < 24; i++)); do results[$i]="${lr_vals[$i]} ${lr_vals[$i]}"; done
# headline dk 64: sqrt 0.70 .. 0.78 (mean 0.740, CI half 2.776 * 0.03162 / sqrt 5 = 0.039);
# dk: sqrt - dk = 0.18 0.21 0.19 0.19 0.18 (0.190 +- 0.015: CI above 0); 1: sqrt - 1 straddles 0
head_test=(0.70 0.72 0.74 0.76 0.78   0.52 0.51 0.55 0.57 0.60   0.75 0.69 0.78 0.72 0.80)
for ((i = 0; i < 15; i++)); do results[$((24 + i))]="0.5 ${head_test[$i]}"; done
results[40]="0.99 1.0000"
results[41]="0.99 0.9950"
results[42]="0.99 0.9990"
other_test=(0.60 0.61 0.65   0.71 0.72 0.76   0.60 0.70 0.65)
for ((i = 0; i < 9; i++)); do results[$((43 + i))]="0.5 ${other_test[$i]}"; done
results[52]="0.5 0.70"
results[53]="0.5 0.74"

id_of() { echo "${jobs[$1]%%	*}"; }

# shard a plans jobs 0..30, shard b plans 25..48 (25..30 in both, finished in both, with other
# timings); together they hold every run but job 39. "all" is one folder holding everything.
write_jobs a 0 30
write_jobs b 25 $((n_jobs - 1))
write_jobs all 0 $((n_jobs - 1))
for ((i = 0; i < n_jobs; i++)); do
    [ $i -eq 39 ] && continue
    set -- ${results[$i]}
    id=$(id_of $i)
    over=0
    [ $i -eq 43 ] && over=12 # one cosine run overflowed 12 values
    finish all "$id" "$1" "$2" 1.5 $over
    [ $i -le 30 ] && finish a "$id" "$1" "$2" 1.5 $over
    [ $i -ge 25 ] && [ $i -le 30 ] && finish b "$id" "$1" "$2" 9.75 $over # the same run again, another timing
    [ $i -gt 30 ] && finish b "$id" "$1" "$2" 1.5 $over
done

# ---------------------------------------------------------------- one folder, and the merge
"$report" all >all.out 2>all.err
rc=$?
svgs=0
for f in all/lr_sort_adamw.svg all/dk_sort.svg all/curves_sort_adamw.svg; do
    head -c 4 "$f" 2>/dev/null | grep -q '<svg' && tail -n 1 "$f" | grep -q '</svg>' && svgs=$((svgs + 1))
done
if [ $rc -eq 0 ] && [ -f all/runs.csv ] && [ -f all/best_lr.tsv ] && [ -f all/summary.md ] && [ $svgs -eq 3 ]; then
    ok "one folder: runs.csv, best_lr.tsv, summary.md and 3 SVG plots (lr, dk, curves)"
else
    bad "one folder" "exit $rc, $svgs plots" "$(cat all.err)"
fi
"$report" --out merged a b >merged.out 2>&1
rc=$?
if [ $rc -eq 0 ] && cmp -s all/summary.md merged/summary.md && cmp -s all/best_lr.tsv merged/best_lr.tsv &&
    cmp -s all/runs.csv merged/runs.csv; then
    ok "two shards merged = one folder holding all runs (summary.md, best_lr.tsv, runs.csv byte-identical)"
else
    bad "merge" "exit $rc" "$(cat merged.out)" "$(diff all/summary.md merged/summary.md | head -n 5)"
fi
"$report" --out merged2 b a >/dev/null 2>&1
if cmp -s all/summary.md merged2/summary.md && cmp -s all/best_lr.tsv merged2/best_lr.tsv; then
    ok "the merge does not depend on the order of the folders"
else
    bad "merge order" "$(diff all/summary.md merged2/summary.md | head -n 5)"
fi
rows=$(($(wc -l <all/runs.csv) - 1))
if [ "$rows" -eq "$n_jobs" ] && [ "$(grep -c ',missing,' all/runs.csv)" -eq 1 ] &&
    grep -q '^head_sqrt_dk64_s6,headline,sort,adamw,sqrt,64,1e-3,6,-,missing,,' all/runs.csv; then
    ok "runs.csv: one row per planned run ($n_jobs), the run never done listed as missing"
else
    bad "runs.csv rows" "$rows rows, want $n_jobs" "$(grep missing all/runs.csv)"
fi
if head -n 1 all/runs.csv | grep -q '^id,stage,task,optim,scale,dk,lr,seed,variant,status,steps,val_acc,val_loss,test_acc,test_loss,test_examples,final_loss,steps_to_threshold,nan_count,fp_overflows,fp_underflows,fp_nans,time_s,score_std_init,score_std_end,qgrad_median_init,qgrad_median_end,jac_median_end,entropy_norm_end,wq_grad_norm_init,scale_x_sqrt_dk_end,command$' &&
    grep -q '^var_attncosine_s1,variants,sort,adamw,none,64,1e-3,1,attn=cosine,done,20,0.5,0.4,0.60,0.45,1000,0.5,-1,0,12,0,0,1.5,1.1,3.2,0.003,0.001,0.15,0.9,0.4,,"./train --task=sort ' all/runs.csv; then
    ok "runs.csv: its columns, the summary's numbers as written, layer means from the log, the command quoted last"
else
    bad "runs.csv columns" "$(head -n 1 all/runs.csv)" "$(grep '^var_attncosine_s1' all/runs.csv)"
fi

# ---------------------------------------------------------------- the tables from runs.csv alone
mkdir -p fromcsv
cp all/runs.csv fromcsv/runs.csv
"$report" --runs fromcsv/runs.csv >fromcsv.out 2>&1
rc=$?
if [ $rc -eq 0 ] && cmp -s all/summary.md fromcsv/summary.md && cmp -s all/best_lr.tsv fromcsv/best_lr.tsv &&
    [ ! -e fromcsv/curves_sort_adamw.svg ] && [ -f fromcsv/lr_sort_adamw.svg ]; then
    ok "--runs runs.csv regenerates summary.md and best_lr.tsv byte for byte (no logs: no curves plot)"
else
    bad "--runs" "exit $rc" "$(cat fromcsv.out)" "$(diff all/summary.md fromcsv/summary.md | head -n 5)"
fi
# a number changed in runs.csv changes the table: the figures come from it
sed 's/^\(head_sqrt_dk64_s1,[^"]*,done,20,0.5,0.4,\)0.70,/\10.10,/' all/runs.csv >changed.csv
"$report" --runs changed.csv --out changed >/dev/null 2>&1
if ! cmp -s changed.csv all/runs.csv && grep -q '^| 1/√dₖ | .* | 0.620 ± 0.' changed/summary.md; then
    ok "a test accuracy edited in runs.csv moves the table's mean (0.740 -> 0.620)"
else
    bad "tables follow runs.csv" "$(grep '^| 1/√dₖ |' changed/summary.md | head -n 2)"
fi

# ---------------------------------------------------------------- known statistics in summary.md
md=all/summary.md
check_line() { # NAME FIXED-STRING
    if grep -qF -- "$2" "$md"; then ok "$1"; else bad "$1" "no line with: $2"; fi
}
check_line "mean ± 95 % CI: sqrt at dk 64 over 5 seeds, 1 missing" "0.740 ± 0.039 (n=5, 1 missing)"
check_line "paired sqrt − dk: +0.190 ± 0.015 over 5 seeds, CI above 0" "| 64 | 1/√dₖ − 1/dₖ | +0.190 ± 0.015 | 5 | 1e-3; 1e-3 | CI above 0 |"
# sqrt - 1 = -0.05 0.03 -0.04 0.04 -0.02: mean -0.008, sd 0.04087, half 2.776 * 0.04087 / sqrt 5 = 0.051
check_line "paired sqrt − 1: interval contains 0" "| 64 | 1/√dₖ − 1 | -0.008 ± 0.051 | 5 | 1e-3; 1e-3 | CI spans 0 (n = 5) |"
# 1.000 0.995 0.999: mean 0.998, sd 0.002646, half 4.303 * 0.002646 / sqrt 3 = 0.007
check_line "the ceiling marked (mean 0.998 within 1 % of 100 %)" "0.998 ± 0.007 (n=3) †"
check_line "the LR sweep: tied rates, the smaller chosen (bold), not interior: at an edge and tied" "| 1 | 16 | **0.500** | 0.500 | 1e-3 (edge, tie) | 2 |"
check_line "the LR sweep: the higher mean validation accuracy chosen, at the edge of its two rates" "| 1/√dₖ | 16 | 0.610 | **0.710** | 3e-3 (edge) | 2 |"
# at the chosen rates: sqrt (3e-3) 0.70 0.72 - 1 (1e-3) 0.50 0.50 = 0.20 0.22: half 12.706 * 0.01414 / sqrt 2 = 0.127
check_line "the paired comparison in stage lr uses the chosen rates" "| 16 | 1/√dₖ − 1 | +0.210 ± 0.127 | 2 | 3e-3; 1e-3 | CI above 0 |"
# cosine - dot (headline's seeds 1-3) = -0.10 -0.11 -0.09: sd 0.01, half 4.303 * 0.01 / sqrt 3 = 0.025
check_line "a variant against the plain model of another stage, by seed" "| 64 | \`attn=cosine\` none − \`-\` 1/√dₖ (headline) | -0.100 ± 0.025 | 3 | 1e-3; 1e-3 | CI below 0 |"
# unit - xavier = 0.01 0 0.02: half 4.303 * 0.01 / sqrt 3 = 0.025
check_line "... and one that is not distinguishable" "| 64 | \`qk-init=unit\` 1/√dₖ − \`-\` 1/√dₖ (headline) | +0.010 ± 0.025 | 3 | 1e-3; 1e-3 | CI spans 0 (n = 3) |"
# sqrt (headline) - 1/8 = 0.10 0.02 0.09: sd 0.04359, half 4.303 * 0.04359 / sqrt 3 = 0.108
check_line "a stage without 1/√dₖ compared with headline's" "| 64 | 1/√dₖ (headline) − 1/8 | +0.070 ± 0.108 | 3 | 1e-3; 1e-3 | CI spans 0 (n = 3) |"
# learned s·sqrt(dk) at the end: layer means 0.9 and 1.2, mean 1.05, sd 0.2121, half 12.706 * 0.2121 / sqrt 2 = 1.906
check_line "a learned multiplier's end value, mean ± CI over seeds and range" "| sort · adamw · \`-\` | learned from 1/√dₖ | 64 | 1e-3 | 1 | 1.050 ± 1.906 (n=2) | 0.900 – 1.200 |"
# the headline at a glance: s = 1 0.75 0.69 0.78 0.72 0.80 (mean 0.748, sd 0.04438, half 2.776 * 0.04438 / sqrt 5 = 0.055),
# dk 0.52 0.51 0.55 0.57 0.60 (0.550, sd 0.03674, half 0.046), and the paired differences above
check_line "the headline stage in one table: every scale and both comparisons" "| sort · adamw | 64 | 0.748 ± 0.055 (n=5) | 0.740 ± 0.039 (n=5, 1 missing) | 0.550 ± 0.046 (n=5) | -0.008 ± 0.051: CI spans 0 (n = 5) | +0.190 ± 0.015: CI above 0 |"
# inside attention: every log's layer means are score std 1.1 -> 3.2, query gradient 0.003 -> 0.001, Jacobian 0.15 at
# the end, entropy/log n 0.9 at the end, Wq's gradient norm 0.4 at the first step
check_line "inside attention: layer means of the first and last logged step, per cell" "| sort · adamw | 1/√dₖ | 64 | 1.1 | 3.2 | 0.003 | 0.001 | 0.15 | 0.9 | 0.4 | 0 of 5 |"
check_line "the runs section: per stage, the runs with NaN steps counted" "| variants | 6 | 6 | 0 | 1 |"
check_line "... and in all" "| all | $n_jobs | $((n_jobs - 1)) | 1 | 1 |"
check_line "the runs with non-finite values counted per cell" "| sort · adamw · \`attn=cosine\` | none | 64 | 1e-3 | 0 of 3 | 1 of 3 | 4 | 0 |"
check_line "the binomial error of one run's accuracy at N = 1000" "N = 1000 test examples: at most 0.0158 (p = 0.5)"
check_line "the missing run counted" "Missing runs: 1 of $n_jobs planned (listed at the end)."
check_line "the missing run listed by id" "- \`head_sqrt_dk64_s6\` (stage headline)"
# read as scripts/ablation.sh reads it: columns by name, the first line of the cell
chosen() {
    awk -F'\t' -v s="$1" -v d="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["task"] == "sort" && $col["optim"] == "adamw" && $col["scale"] == s && $col["dk"] == d && $col["variant"] == "-" {
            print $col["chosen_lr"]; exit }' all/best_lr.tsv
}
if grep -q $'^sort\tadamw\t1\t16\t-\t1e-3\t2\t0.5000\t1\t1e-3$' all/best_lr.tsv && grep -q $'^sort\tadamw\tsqrt\t16\t-\t3e-3\t2\t0.7100\t1\t3e-3$' all/best_lr.tsv &&
    [ "$(awk -F'\t' 'NR > 1 && $9 == 1' all/best_lr.tsv | wc -l)" -eq 6 ] && [ "$(chosen 1 16)" = 1e-3 ] && [ "$(chosen sqrt 64)" = 3e-3 ]; then
    ok "best_lr.tsv: one chosen rate per (task, optim, scale, dk, variant), ties to the smaller"
else
    bad "best_lr.tsv" "$(cat all/best_lr.tsv)"
fi
if grep -q 'chance: ln 20 = 3.00' all/curves_sort_adamw.svg && grep -q 'training loss (nats per target token)' all/curves_sort_adamw.svg; then
    ok "the loss curves: in nats per target token, with the chance level of the runs' vocabulary"
else
    bad "the loss curves' axis and chance level"
fi
if grep -q 'n = 2–5 per point' all/dk_sort.svg && grep -q 'from stages lr, headline' all/dk_sort.svg && grep -q 'n = 2 per point' all/lr_sort_adamw.svg &&
    ! grep -q 'std over seeds' all/*.svg; then
    ok "the plots print their n and no \"mean ± std\" title"
else
    bad "plot labels"
fi

# ---------------------------------------------------------------- conflicts
mkdir -p other/runs
{ echo "$header"; echo "${jobs[0]} --steps=99"; } >other/jobs.tsv
refuse "the same id planned with another command in two folders: refused, naming both" "a/jobs.tsv.*other/jobs.tsv" --out x a other
{ echo "$header"; echo "${jobs[0]}"; } >other/jobs.tsv
finish other "$(id_of 0)" 0.50 0.51
refuse "the same run finished with other results in two folders: refused, naming both" "a/runs/lr_1_dk16_lr1e-3_s1.out and other/runs" --out x a other
finish other "$(id_of 0)" 0.50 0.50 123.4
if "$report" --out x a other >/dev/null 2>&1; then ok "... but a different time_s alone is accepted"; else bad "time_s differs"; fi
refuse "several folders without --out" "--out" a b
{ echo "$header"; echo "${jobs[0]}"; echo "${jobs[0]}"; } >other/jobs.tsv
refuse "an id twice in one jobs.tsv" "lines 2 and 3" other

# ---------------------------------------------------------------- bad input
mkdir -p e
refuse "a folder without jobs.tsv" "e/jobs.tsv: No such file" e
printf 'id\tstage\n' >e/jobs.tsv
refuse "a jobs.tsv with another header" "header" e
{ echo "$header"; printf 'x\tlr\tsort\tadamw\tsqrt\t16\t1e-3\t1\t-\n'; } >e/jobs.tsv
refuse "a line with 9 fields" "jobs.tsv:2: 9 tab-separated fields" e
{ echo "$header"; printf 'x\tlr\tsort\tadamw\tsqrt\tsixteen\t1e-3\t1\t-\tcmd\n'; } >e/jobs.tsv
refuse "a dk that is not a number" "dk \"sixteen\"" e
{ echo "$header"; printf 'x\tlr\tsort\tadamw\thalf\t16\t1e-3\t1\t-\tcmd\n'; } >e/jobs.tsv
refuse "a scale that is none of 1, sqrt, dk, c, learned-sqrt, learned-1" "scale \"half\"" e
{ echo "$header"; printf 'x\tlr\tsort\tadamw\tsqrt\t16\t0x10\t1\t-\tcmd\n'; } >e/jobs.tsv
refuse "a lr that is not a plain number" "lr \"0x10\"" e
{ echo "$header"; printf 'x\tlr\tsort\tadamw\tsqrt\t16\t1e-3\t1\t-\tcmd\n'; } >e/jobs.tsv
mkdir -p e/runs
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=-1 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.4 test_acc=0.5 test_examples=1000 time_s=1\n' >e/runs/x.out
if "$report" e >/dev/null 2>&1; then ok "a whole folder of one run is accepted"; else bad "one-run folder"; fi
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=-1 nan_count=0 fp_ov' >e/runs/x.out
refuse "a summary line cut short (no line end)" "x.out: the summary line has no line end" e
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=-1 nan_count=0\n' >e/runs/x.out
refuse "a summary line cut short after nan_count" "no fp_overflows= field" e
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=-1 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.4 time_s=1\n' >e/runs/x.out
refuse "a summary line with only some of the test set's fields" "no test_acc= field" e
# a run without a test set leaves its three fields out: no test examples, its test accuracy "–"
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=-1 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 time_s=1\n' >e/runs/x.out
if "$report" --out e/no_test e >/dev/null 2>&1 && grep -q '^x,.*,0\.5,0\.4,nan,nan,0,' e/no_test/runs.csv; then
    ok "a summary line without a test set's fields: a run with no test examples"
else
    bad "a summary line without a test set's fields" "$(head -n 2 e/no_test/runs.csv 2>&1)"
fi
printf 'summary: steps=20 final_loss=0.5 val_loss=0.4 val_acc=high steps_to_threshold=-1 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.4 test_acc=0.5 test_examples=1000 time_s=1\n' >e/runs/x.out
refuse "a summary field that is not a number" "val_acc=high is not a number" e
printf 'step 1\n' >e/runs/x.out
refuse "a .out without a summary line" "no summary line" e
finish e x 0.5 0.5
head -c -10 e/runs/x.csv >e/runs/cut.csv && mv e/runs/cut.csv e/runs/x.csv
refuse "a run's CSV log cut short: refused, naming it" "x.csv:4: the last row is cut short" e
finish e x 0.5 0.5
head -n 3 e/runs/x.csv >e/runs/cut.csv && mv e/runs/cut.csv e/runs/x.csv
refuse "a log missing its last rows (fewer steps than the summary)" "step 10 but the run did 20 steps" e
rm e/runs/x.csv
mkfifo e/runs/x.csv
refuse "a FIFO named like a run's log: refused at once (no hang)" "FIFO" e
rm e/runs/x.csv
rm e/jobs.tsv
mkfifo e/jobs.tsv
refuse "a FIFO as jobs.tsv: refused at once" "FIFO" e
rm e/jobs.tsv
head -c -20 all/runs.csv >cut.csv
refuse "--runs on a runs.csv cut short" "cut short" --runs cut.csv --out x
sed '3s/,done,/,finished,/' all/runs.csv >badstatus.csv
refuse "--runs: a status other than done or missing" "status \"finished\"" --runs badstatus.csv --out x
sed '3s/,done,20,/,done,20,,/' all/runs.csv >shifted.csv
refuse "--runs: a row with a field too many" "more than 32 fields" --runs shifted.csv --out x
# impossible values in runs.csv: one line naming the file, the line and the column, exit 2
# bad_value COL VALUE: all/runs.csv with column COL of run head_sqrt_dk64_s1 (on line $at) set to VALUE
at=$(grep -n '^head_sqrt_dk64_s1,' all/runs.csv | cut -d: -f1)
bad_value() { awk -F, -v OFS=, -v c="$1" -v v="$2" '$1 == "head_sqrt_dk64_s1" { $c = v } { print }' all/runs.csv >bad.csv; }
bad_value 14 2.5
refuse "--runs: test_acc=2.5, an accuracy above 1" "bad.csv:$at, column 14 (test_acc): \"2.5\" is not a number from 0 to 1" --runs bad.csv --out x
bad_value 14 inf
refuse "--runs: test_acc=inf" "bad.csv:$at, column 14 (test_acc): \"inf\" is not a number from 0 to 1" --runs bad.csv --out x
bad_value 14 nan
refuse "--runs: test_acc=nan with a test set (not shown as –)" "bad.csv:$at, column 14 (test_acc): \"nan\" with test_examples=1000: a test set gives a number" --runs bad.csv --out x
bad_value 12 nan
refuse "--runs: val_acc=nan" "bad.csv:$at, column 12 (val_acc): \"nan\" is not an accuracy from 0 to 1" --runs bad.csv --out x
bad_value 11 -20
refuse "--runs: negative steps" "bad.csv:$at, column 11 (steps): \"-20\" is not a whole number >= 0" --runs bad.csv --out x
bad_value 17 -inf
refuse "--runs: a loss of -inf" "bad.csv:$at, column 17 (final_loss): \"-inf\" is not a number >= 0" --runs bad.csv --out x
bad_value 23 1e400
refuse "--runs: time_s=1e400 (too large for a number)" "bad.csv:$at, column 23 (time_s): \"1e400\" is not a number" --runs bad.csv --out x
awk '/^head_sqrt_dk64_s1,/ { sub(/"\.\/train /, "\"./train\n") } { print }' all/runs.csv >bad.csv
refuse "--runs: a line break inside a quoted field, said as such" "bad.csv:$at, column 32: the quoted field is not closed on its line: a line break inside a field" --runs bad.csv --out x
# the same runs listed again under new ids (a careless merge of shards): counted once, with a note,
# and the tables are those of the runs once; one such copy with another result is refused
{ cat all/runs.csv; tail -n +2 all/runs.csv | sed 's/^\([^,]*\),/\1_again,/'; } >twice.csv
"$report" --runs twice.csv --out twice >twice.out 2>twice.err
rc=$?
if [ $rc -eq 0 ] && cmp -s twice/summary.md all/summary.md && cmp -s twice/best_lr.tsv all/best_lr.tsv &&
    grep -q "^note: twice.csv: $(($(wc -l <all/runs.csv) - 1)) runs repeat another of the same cell and seed with the same results: counted once" twice.err; then
    ok "--runs: every run listed twice under two ids: counted once, with a note (the same tables)"
else
    bad "--runs: runs listed twice under two ids are counted once" "exit $rc" "$(cat twice.err)" "$(diff all/summary.md twice/summary.md | head -n 5)"
fi
first=$(sed -n 2p all/runs.csv)
{ cat all/runs.csv; printf '%s\n' "$first" | awk -F, -v OFS=, '{ $1 = $1 "_again"; $12 = ($12 == "0.5000" ? "0.6000" : "0.5000"); print }'; } >twice_other.csv
refuse "--runs: one cell and seed twice with other results: refused, both runs named" \
    "the runs $(printf '%s' "$first" | cut -d, -f1) and $(printf '%s' "$first" | cut -d, -f1)_again are one cell with one seed" --runs twice_other.csv --out x
refuse "--out - (standard output is no folder)" "--out -: the report is files in a folder" --runs all/runs.csv --out -
if [ ! -e ./- ]; then ok "... and no folder named - is made"; else bad "--out - made a folder named -"; fi
# ... and in a result folder's summary line or log
mkdir -p impossible/runs
{ echo "$header"; echo "${jobs[0]}"; } >impossible/jobs.tsv
finish impossible "$(id_of 0)" 0.5 2.5
refuse "a summary line with test_acc=2.5" "lr_1_dk16_lr1e-3_s1.out: summary field test_acc=2.5 is not a number from 0 to 1" impossible
finish impossible "$(id_of 0)" 0.5 0.5
sed -i '2s/^1,3.0,1.0,/1,3.0,-1.0,/' "impossible/runs/$(id_of 0).csv"
refuse "a log with a negative score std" "lr_1_dk16_lr1e-3_s1.csv:2: field 3 (l0_score_std) \"-1.0\" is not a number >= 0" impossible
refuse "--runs and folders together without --out" "say where the report goes with --out DIR" --runs all/runs.csv all
refuse "an unknown option" "unknown option --bogus (see --help)" --bogus all
refuse "a mistyped option: did you mean" "unknown option --rnus=x; did you mean --runs? (see --help)" --rnus=x

# ---------------------------------------------------------------- runs at a glance, from their logs
# three short runs: s = 1 and the default 1/sqrt(dk) at dk 32, and one with NaN steps (fp16, the naive softmax, s = 1)
glance=(--steps=20 --log-every=5 --eval-every=10 --batch=8 --eval-examples=16 --layers=2 --quiet)
"$train" "${glance[@]}" --dk=32 --scale=1 --log=s1.csv >s1.out 2>&1
"$train" "${glance[@]}" --dk=32 --log=ssqrt.csv >ssqrt.out 2>&1
"$train" "${glance[@]}" --dk=64 --qk-init=unit --scale=1 --precision=fp16 --softmax=naive --nan=continue --log=nan.csv >nan.out 2>&1
# last COLUMN FILE: the last non-empty value of a column of a log
last() { grep -v '^#' "$2" | awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } $k != "" { v = $k } END { print v }'; }
"$report" s1.csv ssqrt.csv >glance.out 2>glance.err
rc=$?
svg=s1_and_1_more.svg
panels=$(grep -c '<rect x=.* fill="none" stroke="black"/>' "$svg" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$panels" = 6 ] && grep -q '>scale=1<' "$svg" && grep -q '>scale=default<' "$svg" &&
    ! grep -q '>[^<]*dk=32[^<]*<' "$svg" && grep -q "^report: 2 runs -> ./$svg$" glance.out; then
    ok "two logs: one SVG of 6 panels on shared axes, the legend naming each run by the flag that differs (scale), not those they share"
else
    bad "two logs at a glance" "exit $rc, $panels panels" "$(head -c 300 glance.err)" "$(grep -o '>scale[^<]*<' "$svg" 2>/dev/null)"
fi
for panel in "training loss" "held-out accuracy" "std of the scores" "attention entropy" "‖∇Wq‖ (solid) and ‖∇Wk‖ (dashed)" "global gradient norm"; do
    grep -q "$panel" "$svg" 2>/dev/null || bad "the glance's panel \"$panel\""
done
row=$(grep '^scale=1 ' glance.out)
want=$(printf '%.4g %.3f' "$(last loss s1.csv)" "$(last val_acc s1.csv)")
if [ "$(echo "$row" | awk '{ print $2, $3, $4, $9 }')" = "20 $want 0" ]; then
    ok "the table: a line per run with its steps, final loss and last held-out accuracy as logged, no NaN step"
else
    bad "the glance's table" "$row" "want steps 20, loss and accuracy $want, 0 NaN steps"
fi
"$report" --out glance_out nan.csv >nan_glance.out 2>&1
if [ -f glance_out/nan.svg ] && grep -q '^nan ' nan_glance.out && [ "$(awk '$1 == "nan" { print $NF }' nan_glance.out)" = "$(last nan_count nan.csv)" ] &&
    [ "$(last nan_count nan.csv)" -gt 0 ] && grep -q '>./train --dk=64 --scale=1 --qk-init=unit --precision=fp16' glance_out/nan.svg; then
    ok "one log: --out DIR/nan.svg, its command as the subtitle, its NaN steps counted ($(last nan_count nan.csv))"
else
    bad "one log at a glance" "$(cat nan_glance.out)"
fi
grep -v '^#' s1.csv >old_format.csv # a log written before the command line
if "$report" old_format.csv ssqrt.csv >old.out 2>&1 && grep -q '>old_format<' old_format_and_1_more.svg; then
    ok "a log without its command line: named by its file"
else
    bad "a log without its command line" "$(cat old.out)"
fi
refuse "a log and a result folder together" "not both" s1.csv all
refuse "a runs.csv given as a log" "runs.csv:1: not a log of ./train (no step column first); a runs.csv of ./report is read with --runs" all/runs.csv
# a file of a step and a loss is no run's log (it made a figure of NaNs), and one log given twice,
# under two names, would be drawn as two runs
printf 'step,loss\n1,2.5\n2,2.4\n' >two_columns.csv
refuse "a two-column step,loss file is no log of ./train" "two_columns.csv: not a whole log of ./train: no column lr" two_columns.csv
ln -sf s1.csv s1_again.csv
refuse "one log given twice (by another name)" "s1.csv and s1_again.csv are the same log" s1.csv s1_again.csv
refuse "--design --design" "--design given twice" --design --design
# a runs.csv whose loss threshold is crossed after the run's last step
bad_value 18 1000000000000000000000000000000
refuse "--runs: steps_to_threshold past the run's steps" "column 18 (steps_to_threshold): \"1000000000000000000000000000000\" is more than the run's steps=20" --runs bad.csv --out x
printf '# ./train\n,,,\n' >commas.csv # a header of no name at all (this crashed ./report)
refuse "a log whose header is only commas" "commas.csv:2: not a log of ./train (no step column first)" commas.csv

# ---------------------------------------------------------------- the outcomes plot (the second study's tasks)
# job2 ID STAGE TASK SCALE DK LR SEED VARIANT: a planned run of the folder study2 (AdamW)
jobs2=()
job2() { jobs2+=("$1	$2	$3	adamw	$4	$5	$6	$7	$8	./train --task=$3 --scale=$4 --dk=$5 --lr=$6 --seed=$7"); }
# lookup (Fisher), stage test: cells of the design s = 1, 1/sqrt(dk), 1/dk and additive at dk 64 (primaries), unit q, k
# (a secondary); additive's seed 13 never run; 1/sqrt(dk) at dk 32, not a cell of the design. Stage lr: s = 1 at two
# rates, and unit q, k with more runs (3) than its test cell (2), at test accuracy 0.333, which no test run has.
# reverse (sign-flip): s = 1 and 1/sqrt(dk) at dk 64, and a sweep.
lookup_test=("1 - 0.05 0.04 0.62 0.05" "sqrt - 0.98 0.97 0.05 0.99 0.96" "dk - 0.05 0.06 0.04" "none attn=additive 0.97 0.05 x"
    "sqrt qk-init=unit 0.95 0.96")
for cell in "${lookup_test[@]}"; do
    set -- $cell
    sc=$1 var=$2 seed=11
    shift 2
    for acc in "$@"; do job2 "test_lookup_${sc}_${var//=/-}_s$seed" test lookup "$sc" 64 1e-3 $seed "$var"; seed=$((seed + 1)); done
done
for seed in 11 12; do job2 "test_lookup_sqrt_dk32_s$seed" test lookup sqrt 32 1e-3 $seed -; done
for lr in 1e-3 3e-3; do for seed in 101 102; do job2 "lr_lookup_1_lr${lr}_s$seed" lr lookup 1 64 $lr $seed -; done; done
for seed in 101 102 103; do job2 "lr_lookup_unit_s$seed" lr lookup sqrt 64 1e-3 $seed qk-init=unit; done
for seed in 11 12 13; do job2 "test_reverse_1_s$seed" test reverse 1 64 1e-3 $seed -; job2 "test_reverse_sqrt_s$seed" test reverse sqrt 64 1e-3 $seed -; done
for seed in 101 102; do job2 "lr_reverse_sqrt_s$seed" lr reverse sqrt 64 1e-3 $seed -; done
mkdir -p study2/runs
{ echo "$header"; printf '%s\n' "${jobs2[@]}"; } >study2/jobs.tsv
for cell in "${lookup_test[@]}"; do
    set -- $cell
    sc=$1 var=$2 seed=11
    shift 2
    for acc in "$@"; do
        [ "$acc" = x ] || finish study2 "test_lookup_${sc}_${var//=/-}_s$seed" 0.5 "$acc"
        seed=$((seed + 1))
    done
done
for id in test_lookup_sqrt_dk32_s11 test_lookup_sqrt_dk32_s12; do finish study2 $id 0.5 0.90; done
for lr in 1e-3 3e-3; do for seed in 101 102; do finish study2 "lr_lookup_1_lr${lr}_s$seed" 0.1 0.333; done; done
for seed in 101 102 103; do finish study2 "lr_lookup_unit_s$seed" 0.9 0.333; done
reverse_acc=(0.30 0.70 0.40 0.75 0.35 0.65)
for seed in 11 12 13; do
    finish study2 "test_reverse_1_s$seed" 0.5 "${reverse_acc[$(((seed - 11) * 2))]}"
    finish study2 "test_reverse_sqrt_s$seed" 0.5 "${reverse_acc[$(((seed - 11) * 2 + 1))]}"
done
for seed in 101 102; do finish study2 "lr_reverse_sqrt_s$seed" 0.5 0.333; done
"$report" study2 >study2.out 2>&1
# frames FILE: the panels of an SVG, "x y width height" each
frames() { grep -o '<rect x="[0-9.]*" y="[0-9.]*" width="[0-9.]*" height="[0-9.]*" fill="none" stroke="black"/>' "$1" |
    sed 's/<rect x="\([0-9.]*\)" y="\([0-9.]*\)" width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2 \3 \4/'; }
# seeds CLASS FILE: the circles of a class; n_labels FILE: the "n=" texts in order; design_value TASK COLUMN: a column of
# ./report --design (the task's chance and threshold, as the table in code has them)
seeds() { grep -c "<circle class=\"$1\"" "$2"; }
n_labels() { grep -o '>n=[^<]*<' "$1" | tr -d '<>' | paste -sd' ' -; }
design_value() { "$report" --design | awk -F'\t' -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $1 == t { print $col[c]; exit }'; }
# line_y CLASS FILE: the y of a horizontal line of a class; want_y VALUE FILE: where a y value of the accuracy axis
# (-0.03 .. 1.03, lab/study/report_figure.c's accuracy_axis) stands in the panel (the frame: the rect drawn black)
line_y() { grep -o "<line class=\"$1\" [^>]*" "$2" | sed 's/.* y1="\([-0-9.]*\)".*/\1/'; }
want_y() { frames "$2" | awk -v v="$1" '{ printf "%.1f", $2 + (1 - (v + 0.03) / 1.06) * $4 }'; }
o=study2/outcomes_lookup.svg
if [ -f "$o" ] && [ -f study2/outcomes_reverse.svg ] && [ ! -e study2/outcomes_recall.svg ] && [ ! -e all/outcomes_sort.svg ]; then
    ok "outcomes_TASK.svg for each task of the outcome table with test runs (lookup, reverse), none for the others"
else
    bad "outcomes_TASK.svg written" "$(ls study2 all | grep outcomes)" "$(head -c 300 study2.out)"
fi
# 4 + 5 + 3 + 2 (of 3) + 2 runs in the design's cells; none of stage lr (0.333), none of dk 32
if [ "$(seeds seed "$o")" = 16 ] && [ "$(seeds seed study2/outcomes_reverse.svg)" = 6 ] && ! grep -q '<title>lr_' "$o" &&
    ! grep -q 'test accuracy 0.333 ' "$o" && ! grep -q '_dk32_' "$o"; then
    ok "the outcomes plot: a disc per test run of the design's cells (16, 6), no run of stage lr, no cell outside the design"
else
    bad "the outcomes plot's discs" "lookup $(seeds seed "$o") (want 16), reverse $(seeds seed study2/outcomes_reverse.svg) (want 6)" \
        "$(grep -o '<title>[^<]*' "$o" | grep -E 'lr_|0\.333|dk32' | head -n 3)"
fi
if [ "$(n_labels "$o")" = "n=4 n=5 n=3 n=2 of 3 n=2" ] && [ "$(n_labels study2/outcomes_reverse.svg)" = "n=3 n=3" ] &&
    grep -q '>s = 1/√dk<' "$o" && grep -q '>additive<' "$o" && grep -q '>qk-init=unit<' "$o"; then
    ok "the outcomes plot: n under each column, in the design's order (primaries' sides, then secondaries), named"
else
    bad "the outcomes plot's n labels" "lookup: $(n_labels "$o") (want n=4 n=5 n=3 n=2 of 3 n=2)" "reverse: $(n_labels study2/outcomes_reverse.svg)"
fi
placed=""
for task in lookup reverse; do
    f=study2/outcomes_$task.svg
    for line in chance threshold; do
        got=$(line_y $line "$f") want=$(want_y "$(design_value $task $line)" "$f")
        [ -n "$got" ] && [ "$got" = "$want" ] || placed="$placed $task $line at y = ${got:-none} (want $want)"
    done
done
if [ -z "$placed" ] && grep -q 'stroke-dasharray="6,4"/>' <(grep 'class="chance"' "$o") && grep -q '>chance 0.046<' "$o" &&
    grep -q '>success ≥ 0.50<' "$o" && grep -q 'Wilson' "$o" && grep -q 't interval' study2/outcomes_reverse.svg; then
    ok "the outcomes plot: the task's chance (dashed) and success threshold (dotted) at their y, labelled; Wilson or t as its test"
else
    bad "the outcomes plot's reference lines" "$placed"
fi
# the curves: a band (the interquartile range over the runs) under each median line, as many as lines
lines_of() { grep -c '<polyline fill="none" stroke="[^"]*" stroke-width="1.80"' "$1"; }
bands_of() { grep -c '<path class="iqr"' "$1"; }
if [ "$(bands_of all/curves_sort_adamw.svg)" -gt 0 ] && [ "$(bands_of all/curves_sort_adamw.svg)" = "$(lines_of all/curves_sort_adamw.svg)" ] &&
    grep -q '25th–75th' all/curves_sort_adamw.svg; then
    ok "the curves: an interquartile band per median line ($(bands_of all/curves_sort_adamw.svg)), said in the legend"
else
    bad "the curves' bands" "$(bands_of all/curves_sort_adamw.svg) bands, $(lines_of all/curves_sort_adamw.svg) lines"
fi

# ---------------------------------------------------------------- the figures' layout
# text_overflow FILE...: the texts of an SVG that stand past its left or right edge, or past the right side of the
# legend box they stand in; by the estimate the figures are laid out by (run/svg.c, char_em: a width per class of
# character, which neither Helvetica/Arial nor DejaVu Sans exceeds), done again here; a UTF-8 character counted once;
# rotated texts left out
text_overflow() {
    LC_ALL=C awk 'function em(c) {
            if (c ~ /[\200-\277]/) return 0; if (c ~ /[\300-\377]/) return 1.0
            if (index(" .,:;\047|ijl", c)) return 0.34; if (index("ftrI()[]/\\-!\"", c)) return 0.46
            if (index("mwMW", c)) return 1.0; if (index("=+<>#~^", c)) return 0.84; if (c == "%" || c == "@") return 1.05
            if (c ~ /[A-Z&]/) return 0.8; return 0.66 }
        function attr(line, name) { if (!match(line, " " name "=\"[-0-9.]+\"")) return ""; return substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4) + 0 }
        /^<svg / { width = attr($0, "width"); box_w = 0 }
        /^<rect .*fill="white" stroke="#999"/ { box_x = attr($0, "x"); box_y = attr($0, "y"); box_w = attr($0, "width"); box_h = attr($0, "height") }
        /^<text x=/ { x = attr($0, "x"); y = attr($0, "y"); size = attr($0, "font-size")
            match($0, /text-anchor="[a-z]+"/); anchor = substr($0, RSTART + 13, RLENGTH - 14)
            t = $0; sub(/^<text[^>]*>/, "", t); sub(/<\/text>$/, "", t); gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&amp;/, "W", t)
            w = 0; for (i = 1; i <= length(t); i++) w += em(substr(t, i, 1)) * size
            lo = anchor == "start" ? x : anchor == "end" ? x - w : x - w / 2
            if (lo < -0.5 || lo + w > width + 0.5) print FILENAME ": \"" t "\" from x = " lo " to " lo + w " (width " width ")"
            if (box_w && x >= box_x && x <= box_x + box_w && y >= box_y && y <= box_y + box_h && lo + w > box_x + box_w + 0.5)
                print FILENAME ": \"" t "\" to x = " lo + w ", past its legend box (to " box_x + box_w ")" }' "$@"
}
# the runs of one dk with logs: the curves figure of a single row of panels
mkdir -p one_dk/runs
{ echo "$header"; for sc in 1 sqrt; do for seed in 1 2; do
    echo "h_${sc}_s$seed	headline	sort	adamw	$sc	64	1e-3	$seed	-	./train --scale=$sc --seed=$seed"; done; done; } >one_dk/jobs.tsv
for id in h_1_s1 h_1_s2 h_sqrt_s1 h_sqrt_s2; do finish one_dk "$id" 0.5 0.6; done
"$report" one_dk >/dev/null 2>&1
# the dk plot: every seed a disc; a bar end past 0 or 1 cut, marked and counted; a scale that never
# ran at a dk drawn there from the runs of another scale with the same s (1/8 at dk 64 is 1/sqrt(dk))
mkdir -p shared/runs
{ echo "$header"; for cell in "sqrt 16 0.80 0.82" "sqrt 64 0.1 0.9" "8 16 0.5 0.52"; do
    set -- $cell
    echo "t_$1_dk$2_s1	test	sort	adamw	$1	$2	1e-3	1	-	./train --scale=$1 --dk=$2 --seed=1"
    echo "t_$1_dk$2_s2	test	sort	adamw	$1	$2	1e-3	2	-	./train --scale=$1 --dk=$2 --seed=2"
done; } >shared/jobs.tsv
for cell in "sqrt 16 0.80 0.82" "sqrt 64 0.1 0.9" "8 16 0.5 0.52"; do
    set -- $cell
    finish shared "t_$1_dk$2_s1" 0.5 "$3"
    finish shared "t_$1_dk$2_s2" 0.5 "$4"
done
"$report" shared >/dev/null 2>&1
d=shared/dk_sort.svg
# 6 runs; the two of sqrt at dk 64 drawn twice (on 1/8's line too): 8 discs; their interval (0.5 +- 12.7 * 0.4 / sqrt 2)
# is cut at both ends, on both lines: 4 ends, 4 triangles (the markers of the lines are filled)
if [ -f "$d" ] && [ "$(seeds seed "$d")" = 8 ] && grep -q '1/8 at dk 64: the runs of 1/√dk (the same s)' "$d" &&
    grep -q 'cut at 0 and 1: 4 bar ends reach' "$d" && [ "$(grep -c '<polygon points="[^ ]* [^ ]* [^ ]*" fill="white"' "$d")" = 4 ]; then
    ok "dk plot: every seed a disc, 1/8 at dk 64 from 1/sqrt(dk)'s runs (the same s), bar ends cut at [0, 1] marked and counted"
else
    bad "dk plot: seeds, shared s, cut bars" "discs $(seeds seed "$d" 2>&1), hollow triangles $(grep -c '<polygon points="[^ ]* [^ ]* [^ ]*" fill="white"' "$d" 2>&1)" \
        "$(grep -o 'the runs of[^;<]*\|cut at[^<]*' "$d" 2>&1 | head -3)"
fi
l=all/lr_sort_adamw.svg
want=$(awk -F, '$2 == "lr" && $10 == "done" && $12 != "" { n++ } END { print n + 0 }' all/runs.csv)
if [ "$(seeds seed "$l")" = "$want" ] && [ "$want" -gt 0 ] && grep -q 'discs: the seeds' "$l"; then
    ok "lr plot: every done run of the sweep a disc ($want)"
else
    bad "lr plot: one disc per run" "discs $(seeds seed "$l"), runs $want"
fi
# ---------------------------------------------------------------- the law (law.md, law.svg)
# Under unit init, dk 16, 64, 256, c = 2^k for k = -2..2 (scale sqrt(dk)/c). The score std at step 1 is s sigma0 with
# sigma0 = sqrt(dk), i.e. c: alpha_pred = 1/2 exactly. A seed's c* per dk is learned at step 300, its neighbours at 500,
# the rest never. Stage cal: seed 201 c* = 1 everywhere (alpha 0.5), seed 202 c* = 1, 2, 4 (s* constant: alpha 0).
# Stage law: seeds 301-303 with k* = (0,0,0), (0,0,1), (1,0,0): alpha 0.5, 0.25, 0.75, mean 0.5, sd 0.25; the test of
# alpha = 0 (and of 1): t = 0.5 / (0.25 / sqrt 3) = 3.464, df 2, p = 1 - t / sqrt(2 + t^2) = 0.0742 (df 2's closed form).
# Stage law also has seed 304, done at dk 16, 64, 256 (k* 0) with one run at dk 1024 planned, not run yet: a seed
# whose grid is not all done has no alpha (else 0.5 from 3 dk), so the tests stay at 3 seeds.
mkdir -p law/runs
echo "$header" >law/jobs.tsv
law_cell() { # STAGE SEED K16 K64 K256 (into folder $law_dir, default law)
    local stage=$1 seed=$2 kstar d k c scale t id to=${law_dir:-law} lr=${law_lr:-0.001}
    shift 2
    for d in 16 64 256; do
        kstar=$1
        shift
        for k in -2 -1 0 1 2; do
            c=$(awk -v k="$k" 'BEGIN { printf "%.10g", 2 ^ k }')
            scale=$(awk -v d="$d" -v c="$c" 'BEGIN { printf "%.9g", sqrt(d) / c }')
            t=-1
            [ "$k" = "$kstar" ] && t=300
            [ $((k - kstar)) = 1 ] || [ $((k - kstar)) = -1 ] && t=500
            id="${stage}_s-${scale}_dk${d}_seed${seed}"
            echo "$id	$stage	lookup	adamw	$scale	$d	$lr	$seed	qk-init=unit,steps=1000	./train --scale=$scale --dk=$d --seed=$seed --lr=$lr" >>"$to/jobs.tsv"
            printf 'summary: steps=1000 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=%s nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.45 test_acc=%s test_examples=1000 time_s=1\n' "$t" "$([ "$t" = -1 ] && echo 0.05 || echo 0.9)" >"$to/runs/$id.out"
            printf 'step,loss,l0_score_std,l1_score_std,l0_qgrad_median,l1_qgrad_median,l0_jac_median,l1_jac_median,l0_gnorm_wq,l1_gnorm_wq,l0_entropy_norm,l1_entropy_norm,val_loss,val_acc,nan_count\n1,3.0,%s,%s,0.002,0.004,0.4,0.2,0.5,0.3,1,1,,,0\n1000,0.5,3.0,3.4,0.0005,0.0015,0.2,0.1,0.1,0.1,0.8,1.0,0.4,0.5,0\n' "$c" "$c" >"$to/runs/$id.csv"
        done
    done
}
law_cell cal 201 0 0 0
law_cell cal 202 0 1 2
law_cell law 301 0 0 0
law_cell law 302 0 0 1
law_cell law 303 1 0 0
law_cell law 304 0 0 0
# the robustness arm at lr 0.002, seeds 301-303 with k* (0,0,1), (0,0,0), (0,0,0): alpha 0.25, 0.5, 0.5 (mean 0.417);
# the experiment's on the same dk 0.5, 0.25, 0.75 (mean 0.5); the differences -0.25, +0.25, -0.25 (mean -0.083)
law_lr=0.002 law_cell robust 301 0 0 1
law_lr=0.002 law_cell robust 302 0 0 0
law_lr=0.002 law_cell robust 303 0 0 0
echo "law_s-32_dk1024_seed304	law	lookup	adamw	32	1024	0.001	304	qk-init=unit,steps=1000	./train --scale=32 --dk=1024 --seed=304" >>law/jobs.tsv
# at dk 4, seed 203: c = 1 done, c = 2 planned and not run (yet): that (dk, init, seed) has no c* and is not judged by the
# calibration's rule, and the seeds it sizes are preliminary
echo "cal_s-2_dk4_seed203	cal	lookup	adamw	2	4	0.001	203	qk-init=unit,steps=1000	./train --scale=2 --dk=4 --seed=203" >>law/jobs.tsv
printf 'summary: steps=1000 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=300 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.45 test_acc=0.5 test_examples=1000 time_s=1\n' >law/runs/cal_s-2_dk4_seed203.out
printf 'step,loss,l0_score_std,l1_score_std,l0_qgrad_median,l1_qgrad_median,l0_jac_median,l1_jac_median,l0_gnorm_wq,l1_gnorm_wq,l0_entropy_norm,l1_entropy_norm,val_loss,val_acc,nan_count\n1,3.0,1,1,0.002,0.004,0.4,0.2,0.5,0.3,1,1,,,0\n1000,0.5,3.0,3.4,0.0005,0.0015,0.2,0.1,0.1,0.1,0.8,1.0,0.4,0.5,0\n' >law/runs/cal_s-2_dk4_seed203.csv
echo "cal_s-1_dk4_seed203	cal	lookup	adamw	1	4	0.001	203	qk-init=unit,steps=1000	./train --scale=1 --dk=4 --seed=203" >>law/jobs.tsv
"$report" law >law.out 2>&1
m=law/law.md
if [ -f "$m" ] && [ -f law/law.svg ] && grep -q 'law.md, law_grid.md, law.svg, law_grid.svg' law.out; then ok "law.md and law.svg from the law stages' runs"; else bad "law.md written" "$(head -3 law.out)"; fi
if grep -q 'The calibration.s rule .*whose runs are all done: 6 here; 1 more not done yet, not judged): \*\*qualifies\*\*' "$m" &&
    grep -q '^| 4 | 2 | 0.5 | – | – | – | not all run (1 of 2 c) | – (n = 0) |' "$m" && grep -q 'α per seed .*: 201: 0.500; 202: 0.000; 203: –' "$m" &&
    grep -q 'α̂ = 0.250 ' "$m" && grep -q 'α_pred = 0.500 (per seed, from its own runs: 0.500 to 0.500, sd 0.000, n = 2)' "$m" && grep -q '| 64 | 8 | 0.125 | 0.177 | 1 at step 300 (3 of 5 c) | 2 at step 300 (3 of 5 c) | – | 2^0.5 ' "$m"; then
    ok "law.md: c* per seed and dk, the median c*, alpha per seed (0.5 and 0), alpha-hat, alpha_pred = 1/2 from sigma0 = sqrt(dk)"
else
    bad "law.md's calibration" "$(grep -n 'qualif\|α per seed\|^| 64' "$m" | head -4)"
fi
# seeds for the experiment: the sd assumed is the larger of |0.5 - 0| / sqrt 2 = 0.354 and 0.25
if grep -q 'Seeds for the experiment (DESIGN.md), preliminary (runs of the grid not all done): .*unit 0.354; xavier undefined (0 seeds with α); the sd assumed, the larger of these and 0.25: 0.354' "$m" &&
    grep -q 'with \*\*n = [0-9]* seeds\*\*' "$m"; then
    ok "law.md: the seeds the experiment needs, from the calibration seeds' spread"
else
    bad "law.md's seed sizing" "$(grep 'Seeds for' "$m")"
fi
if grep -q '| unit | α = 0 (a constant s) | 0.500 | 0.250 | 3 | 0.074 |' "$m" && grep -q '| unit | α = 1 (s = 1/dₖ) | 0.500 | 0.250 | 3 | 0.074 |' "$m" &&
    grep -q '| unit | α = α_pred (s = 1/σ₀) = 0.500 | 0.500 | 0.250 | 3 | 1 |' "$m" && grep -c 'no test (n < 2' "$m" | grep -qx 3 &&
    grep -q '0.074 | 0.22 | 0.0167 | interim, not judged (3 of the [0-9]* seeds planned) |' "$m" &&
    grep -q 'α per seed .*: 301: 0.500; 302: 0.250; 303: 0.750; 304: –\. α̂ = 0.500 \[.*\] (mean, 95 % t interval, n = 3: an interim look, [0-9]* seeds planned)' "$m" &&
    grep -q '^| 1024 | .* | not run yet (0 of 1 c) |' "$m"; then
    ok "law.md: the pre-registered t tests (p = 0.0742 at t = 3.46, df 2; Holm over the 3 that exist), an interim look (3 seeds of those planned; a seed not all run has no alpha)"
else
    bad "law.md's tests" "$(grep '^| unit' "$m")"
fi
if grep -q '^## robust: 1000 steps at lr 0.002' "$m" && grep -q '^Beside the experiment (lr 0.001), under unit init, .* each α from dₖ 16, 64 and 256 only' "$m" &&
    grep -q '^| 0.002 (this arm) | 0.417 \[.*\] | 3 |$' "$m" && grep -q '^| 0.001 (the experiment) | 0.500 \[.*\] | 3 |$' "$m" &&
    grep -q '^| paired difference, 0.002 − 0.001 | -0.083 \[-0.800, +0.634\] | 3 |$' "$m"; then
    ok "law.md: the robustness arm beside the experiment, the same seeds and dk (alpha 0.417 and 0.500, paired -0.083)"
else
    bad "law.md's robustness arm" "$(grep -A 6 '^Beside the experiment' "$m" | head -n 7)"
fi
# the figure: a disc per seed with a c* per dk (stage law: 4 seeds x 3 dk), under one init; says it is interim
if [ "$(seeds seed law/law.svg)" = 12 ] && grep -q 'stage law, 1000 steps' law/law.svg && grep -q 'An interim look: fewer seeds than the [0-9]* planned' law/law.svg &&
    grep -q '>qk-init=xavier: no runs<' law/law.svg; then
    ok "law.svg: the experiment's stage, every seed's s*, an interim look, an init with no runs says so"; else
    bad "law.svg" "discs $(seeds seed law/law.svg)"; fi
# a law group of two tasks is refused (c* of different tasks never pooled)
mkdir -p lawmix/runs
cp law/runs/law_* lawmix/runs/
{ grep -v '^law_s-32_dk1024_seed304' law/jobs.tsv | awk -F'\t' 'NR == 1 || $2 == "law"'
    echo "law_rev_s-4_dk16_seed301	law	reverse	adamw	4	16	0.001	301	qk-init=unit,steps=1000	./train --task=reverse"; } >lawmix/jobs.tsv
cp law/runs/law_s-4_dk16_seed301.out lawmix/runs/law_rev_s-4_dk16_seed301.out
refuse "law runs of two tasks in one (stage, steps, rate) group" "task [a-z]* among stage law's runs of task [a-z]* at 1000 steps, lr 0.001 (one task per law group)" lawmix
# law_grid.md: per (dk, c) over the seeds (a run that learned has test accuracy 0.9, else 0.05; lookup's threshold 0.5).
# Stage law at dk 16 (seeds 301-304, k* 0, 0, 1, 0): c = 1/4 never; c = 1/2 at step 500 but for seed 303 (censored at
# 1000): KM median 500, 3/4 successes, Wilson [0.30, 0.95]; c = 1 at 300, 300, 500, 300. sigma0 = sqrt 16; end entropy
# (0.8 + 1.0) / 2. Seed 304's dk 1024 run, not done, has no row.
m=law/law_grid.md
if grep -q 'law_grid.md' law.out && grep -A 12 '^## law: 1000 steps' "$m" | grep -q '^| 16 | 1/4 | 0.0625 | 4 | 0/4 | not reached | 0/4 \[0.00, 0.49\] | 4 | 0.900 |$' &&
    grep -A 12 '^## law: 1000 steps' "$m" | grep -q '^| 16 | 1/2 | 0.125 | 4 | 3/4 | 500 | 3/4 \[0.30, 0.95\] | 4 | 0.900 |$' &&
    grep -A 12 '^## law: 1000 steps' "$m" | grep -q '^| 16 | 1 | 0.25 | 4 | 4/4 | 300 | 4/4 \[0.51, 1.00\] | 4 | 0.900 |$' && ! grep -q '^| 1024 ' "$m"; then
    ok "law_grid.md: per (dk, c) the learned count, the Kaplan-Meier median (censored runs), successes with Wilson, sigma0, end entropy"
else
    bad "law_grid.md" "$(grep -A 8 '^## law' "$m" 2>&1 | head -n 8)"
fi
# the claims' multipliers in that grid (k = log2 of c = s sqrt(dk); the grid's k: -2 .. 2): s = 1 is c = 4 at dk 16 (seed
# 303 alone learns there: k* 1), beyond the grid from dk 64; 1/8 is c = 1/2, 1, 2 at dk 16, 64, 256 (3/4 at 500, 4/4 at
# 300, 4/4 at 500); 1/dk is c = 1/4 at dk 16 (0/4), beyond the grid from 64; at dk 1024 (planned, not run) 1/sqrt(dk)
# and 1/8 are in the grid and not run
if awk '/^## law: /, /^## robust/' "$m" | grep -q '^| unit | 1 | 1/4 (–) | outside the grid | outside the grid | outside the grid |$' &&
    awk '/^## law: /, /^## robust/' "$m" | grep -q '^| unit | 1/8 | 3/4 (500) | 4/4 (300) | 4/4 (500) | not run |$' &&
    awk '/^## law: /, /^## robust/' "$m" | grep -q '^| unit | 1/dₖ | 0/4 (–) | outside the grid | outside the grid | outside the grid |$' &&
    awk '/^## law: /, /^## robust/' "$m" | grep -q '^| unit | 1/√dₖ | 4/4 (300) | 4/4 (300) | 4/4 (300) | not run |$'; then
    ok "law_grid.md: the claims' multipliers (1, 1/sqrt(dk), 1/dk, 1/8) picked from the grid per dk, outside it, not run"
else
    bad "law_grid.md's claims' multipliers" "$(awk '/^## law: /, /^## robust/' "$m" | grep '^| unit |')"
fi
# law_grid.svg: dk 16's lines (its colour, the first), unit init. Share learned at c = 1/4 .. 4: 0, 3/4, 1, 1, 1/4 (the
# axis -0.03 .. 1.03 over 240 px: 169.8, 226.4, 226.4, 56.6 px above the first point); median steps (0 .. 1000 over 240
# px) 500, 300, 500 at c = 1/2, 1, 2 (300 is 48 px below 500), none at 1/4 and 4. No line or legend for dk 1024 (no run).
g=law/law_grid.svg
share=$(grep -m 1 '<polyline fill="none" stroke="#440154"' "$g" | sed 's/.*points="//; s/ *".*//' | tr ' ' '\n' |
    awk -F, 'NR == 1 { y0 = $2 } { printf "%s%.1f", (NR > 1 ? " " : ""), y0 - $2 }')
steps=$(grep '<polyline fill="none" stroke="#440154"' "$g" | sed -n 2p | sed 's/.*points="//; s/ *".*//' | tr ' ' '\n' |
    awk -F, 'NR == 1 { y0 = $2 } { printf "%s%.1f", (NR > 1 ? " " : ""), $2 - y0 }')
if [ "$share" = "0.0 169.8 226.4 226.4 56.6" ] && [ "$steps" = "0.0 48.0 0.0" ] && grep -q '>dk 256<' "$g" && ! grep -q '>dk 1024<' "$g"; then
    ok "law_grid.svg: a line per dk with runs, the share learned and the Kaplan-Meier median against c, as law_grid.md"
else
    bad "law_grid.svg" "share: $share" "steps: $steps"
fi
# the seeds planned all done: judged. Calibration alphas 0.5 and 0.25 (spread 0.177, below the floor 0.25: n = 7); law
# seeds 301-307 with alpha 0.5, 0.5, 0.5, 0.25, 0.75, 0.5, 0.5: mean 0.5, sd 0.144, t = 9.17 against 0 and 1 (df 6, p
# 9.5e-05 each, Holm 2.9e-04 < 0.05: rejected), and t = 0 against alpha_pred = 0.5 (p 1: not distinguishable)
mkdir -p law7/runs
echo "$header" >law7/jobs.tsv
law_dir=law7
law_cell cal 201 0 0 0
law_cell cal 202 0 0 1
for seed in 301 302 303 306 307; do law_cell law $seed 0 0 0; done
law_cell law 304 0 0 1
law_cell law 305 1 0 0
unset law_dir
"$report" law7 >law7.out 2>&1
m=law7/law.md
if grep -q 'unit 0.177; .*\*\*n = 7 seeds\*\*' "$m" && grep -q '| unit | α = 0 (a constant s) | 0.500 | 0.144 | 7 | 9.5e-05 | 0.00029 | 0.0167 | α ≠ 0.000 |' "$m" &&
    grep -q '| unit | α = 1 (s = 1/dₖ) | 0.500 | 0.144 | 7 | 9.5e-05 | 0.00029 | 0.0250 | α ≠ 1.000 |' "$m" &&
    grep -q '| unit | α = α_pred (s = 1/σ₀) = 0.500 | 0.500 | 0.144 | 7 | 1 | 1 | 0.0500 | not distinguishable (MDD [0-9.]* at α 0.0500) |' "$m" &&
    grep -q '\*\*α̂ = 0.500 \[' "$m" && ! grep -q 'interim, not judged (\|: an interim look' "$m" && ! grep -q 'An interim look' law7/law.svg; then
    ok "law.md: the seeds planned all done, the tests judged (alpha = 0 and 1 rejected, alpha_pred not distinguishable)"
else
    bad "law.md judged at n = 7" "$(head -n 2 law7.out)" "$(grep '^| unit\|n = 7\|α̂' "$m" 2>&1 | head -n 6)"
fi
# twin runs: seed 301's xavier runs are copies of its unit runs at dk 16 (5 of 5 pairs alike: one init there), at dk
# 64 all differ in final_loss (not named), at dk 256 one of 5 differs (4 of 5: named apart, "not all")
mkdir -p lawtwin/runs
cp law7/runs/* lawtwin/runs/
cp law7/jobs.tsv lawtwin/
awk -F'\t' -v OFS='\t' '$2 == "law" && $8 == 301 { $1 = $1 "_x"; sub(/qk-init=unit/, "qk-init=xavier", $9); print }' law7/jobs.tsv >>lawtwin/jobs.tsv
for f in lawtwin/runs/law_*_seed301.out; do
    x=${f%.out}_x
    cp "${f%.out}.csv" "$x.csv"
    case $f in
    *_dk64_*) sed 's/final_loss=0.5 /final_loss=0.51 /' "$f" >"$x.out" ;;
    *s-8_dk256_*) sed 's/test_loss=0.45 /test_loss=0.46 /' "$f" >"$x.out" ;;
    *) cp "$f" "$x.out" ;;
    esac
done
"$report" lawtwin >lawtwin.out 2>&1
m=lawtwin/law.md
if [ "$(grep -c '^The two inits are one init at dₖ 16 (5 of 5 pairs of runs at one c and seed alike in every number of runs.csv but the time): with H·dₖ = C' "$m")" = 1 ] &&
    grep -q '^Some runs of the two inits are alike at dₖ 256 (4 of 5 pairs .*), not all: not one init there\.$' "$m" && ! grep -q 'dₖ 64 ([0-9]* of' "$m" &&
    awk '/^## law: /, 0' lawtwin/law_grid.md | grep -q '^The two inits are one init at dₖ 16 (5 of 5 pairs'; then
    ok "law.md and law_grid.md: twin runs of the two inits named (dk 16 all 5 alike: one init; dk 256 4 of 5: not; dk 64 none: not named)"
else
    bad "law.md's twin runs" "$(head -n 2 lawtwin.out)" "$(grep -n 'inits are\|alike at' "$m" 2>&1 | head -n 3)"
fi
# a runs.csv kept from earlier sessions (the calibration's rows) merged with a folder that has the rest done: the
# same runs.csv and law.md as the whole folder's, byte for byte
mkdir -p law2/runs
cp law/jobs.tsv law2/
cp law/runs/law_* law2/runs/
awk -F, 'NR == 1 || $2 != "law"' law/runs.csv >law_record.csv
"$report" --runs law_record.csv --out law_merged law2 >law_merged.out 2>&1
if cmp -s law_merged/runs.csv law/runs.csv && cmp -s law_merged/law.md law/law.md; then
    ok "--runs RECORD with a folder: the record's done runs and the folder's merged (runs.csv and law.md as from one folder)"
else
    bad "--runs with a folder" "$(head -n 3 law_merged.out)" "$(diff law_merged/runs.csv law/runs.csv 2>&1 | head -n 3)"
fi
sed 's/steps_to_threshold=300/steps_to_threshold=310/' law/runs/law_s-4_dk16_seed301.out >law2/runs/law_s-4_dk16_seed301.out
awk -F, 'NR == 1 || $1 == "law_s-4_dk16_seed301"' law/runs.csv >law_one.csv
refuse "--runs and a folder: a run done in both with other results" "run law_s-4_dk16_seed301 is done in the runs.csv and in the folders with other results" \
    --runs law_one.csv --out x law2

# ---------------------------------------------------------------- fails, or slower? (slower.md)
# lookup: 1/sqrt(dk) learns at steps 100, 200, ..., 600; s = 1 never (6 runs censored at 5000): O - E = -(6/12 + 6/11 +
# 6/10 + 6/9 + 6/8 + 6/7) = -3.92. reverse: s = 1/dk learns at 1000, 2000, 3000 and 3 never; its 1/sqrt(dk) like lookup's.
mkdir -p slow/runs
echo "$header" >slow/jobs.tsv
slow_run() { # TASK SCALE VARIANT SEED STEPS_TO_THRESHOLD
    local id="slower_$1_$2_$4"
    echo "$id	slower	$1	adamw	$2	64	0.001	$4	$3	./train --task=$1 --scale=$2 --seed=$4" >>slow/jobs.tsv
    printf 'summary: steps=5000 final_loss=0.5 val_loss=0.4 val_acc=0.5 steps_to_threshold=%s nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.45 test_acc=%s test_examples=1000 time_s=1\n' \
        "$5" "$([ "$5" = -1 ] && echo 0.05 || echo 0.9)" >"slow/runs/$id.out"
}
for seed in 1 2 3 4 5 6; do
    slow_run lookup sqrt steps=5000 $seed $((seed * 100))
    slow_run lookup 1 steps=5000 $seed -1
    slow_run reverse sqrt steps=5000 $seed $((seed * 100))
    slow_run reverse dk steps=5000 $seed "$([ $seed -le 3 ] && echo $((seed * 1000)) || echo -1)"
done
"$report" slow >slow.out 2>&1
m=slow/slower.md
if grep -q 'slower.md' slow.out && grep -q '| lookup | s = 1 | 0.001 | 5000 | 6 | 0/6 \[0.00, 0.39\] | not reached | 0/6 |' "$m" &&
    grep -q '| lookup | s = 1/√dₖ | 0.001 | 5000 | 6 | 6/6 \[0.61, 1.00\] | 300 | 6/6 |' "$m" &&
    grep -q '| reverse | s = 1/dₖ | 0.001 | 5000 | 6 | 3/6 \[0.19, 0.81\] | 3000 | 3/6 |' "$m" &&
    grep -q '| lookup | s = 1 | s = 1/√dₖ | 0/6 / 6/6 | -3.92 | .* | fails within the budget |' "$m" &&
    grep -q '| reverse | s = 1/dₖ | s = 1/√dₖ | 3/6 / 6/6 | -.* | slower |' "$m" && grep -q 'Holm over 2' "$m"; then
    ok "slower.md: learned counts (Wilson), Kaplan-Meier medians, successes; log-rank O - E and verdicts (fails, slower), Holm over 2"
else
    bad "slower.md" "$(head -n 2 slow.out)" "$(grep '^| [lr]' "$m" 2>&1 | head -n 6)"
fi
# slower.svg: a panel per task, a staircase per cell: reverse's 1/dk rises by 1/6 at steps 1000, 2000, 3000 and
# stays at 1/2 to step 5000 (x 450 .. 750 for steps 0 .. 5000, y 335.2 .. 108.8 for 0 .. 1); lookup's s = 1 stays at 0;
# the second study's budgets (1000 steps) drawn
slow_svg=slow/slower.svg
risers=$(grep -c '<polyline fill="none" stroke="[^"]*" stroke-width="2.00"' "$slow_svg" 2>/dev/null)
if grep -q 'slower.svg' slow.out && [ "$risers" = 4 ] && grep -q '>lookup</text>' "$slow_svg" && grep -q '>reverse</text>' "$slow_svg" &&
    [ "$(grep -c 'stroke="#888888" stroke-width="1.00" stroke-dasharray="2,3"' "$slow_svg")" = 2 ] &&
    grep -q 'reverse: s = 1/dk (6 runs)\|reverse: s = 1/dₖ (6 runs)' "$slow_svg" &&
    grep -q 'stroke="#2ca02c" stroke-width="2.00" stroke-dasharray="7,3" points="450.0,335.2 510.0,335.2 510.0,297.5 570.0,297.5 570.0,259.7 630.0,259.7 630.0,222.0 750.0,222.0 "' "$slow_svg"; then
    ok "slower.svg: a panel per task, a line per cell (4) in its legend, the second study's budget marked"
else
    bad "slower.svg" "$risers lines" "$(head -n 2 slow.out)"
fi
overflow=$(text_overflow all/*.svg one_dk/*.svg "$svg" glance_out/nan.svg study2/*.svg shared/*.svg law/*.svg slow/*.svg 2>&1)
if [ -f one_dk/dk_sort.svg ] && [ -z "$overflow" ]; then
    ok "every title, subtitle, label and legend inside its figure, and every legend's text inside its box (the long ones wrapped)"
else
    bad "texts past a figure's edge" "$(echo "$overflow" | head -n 3)"
fi
width=$(grep -o '^<svg [^>]*width="[0-9]*"' one_dk/curves_sort_adamw.svg | sed 's/.*width="//; s/"//')
layout=$(frames one_dk/curves_sort_adamw.svg | awk -v w="${width:-1}" '{ n++; tops[$2] = 1; if ($1 + $3 > right) right = $1 + $3 }
    END { t = 0; for (y in tops) t++; print n, t, (right / w >= 0.6) }')
if [ "$layout" = "3 1 1" ]; then
    ok "the curves figure of one dk: its three panels side by side, across the figure (a row per dk)"
else
    bad "the curves figure's layout" "panels, rows, across: $layout (want 3 1 1)" "$(frames one_dk/curves_sort_adamw.svg)"
fi
# the x ticks (short vertical lines below a panel) and the vertices of the lines of the dk plot: the points of one dk
# stand around its tick, centred on it (a dodge of a few pixels), not beside it where they would read as another dk
dodge=$(LC_ALL=C awk '/<line x1=.* stroke="black"\/>/ { split($0, a, "\""); if (a[2] == a[6] && a[8] - a[4] == 4) tick[++nt] = a[2] + 0 }
    /<polyline/ { p = $0; sub(/.*points="/, "", p); sub(/".*/, "", p); n = split(p, v, " "); for (i = 1; i <= n; i++) { split(v[i], c, ","); vx[++nv] = c[1] + 0 } }
    END { worst = 0; for (t = 1; t <= nt; t++) { s = 0; k = 0; for (i = 1; i <= nv; i++) if (vx[i] - tick[t] < 12 && tick[t] - vx[i] < 12) { s += vx[i] - tick[t]; k++ }
              if (k && (s / k > worst || -s / k > worst)) worst = (s / k > 0 ? s / k : -s / k) }
          print (nt > 0 && nv > 0 && worst <= 0.6) ? "centred" : "off by " worst " px" }' all/dk_sort.svg)
if [ "$dodge" = centred ]; then
    ok "the dk plot: the points of one dk dodged a few pixels around its tick, centred on it"
else
    bad "the dk plot's dodge" "the points around a tick: $dodge on average"
fi
# the step axis and the loss axis start at 0: a tick at the left edge of every curves panel, at the bottom of the loss ones
# (the loss panels: the rightmost column; a y tick is a short line left of the frame)
zero=0
loss_zero=0
while read -r x y w h; do
    bottom=$(awk -v a="$y" -v b="$h" 'BEGIN { printf "%.1f", a + b }')
    left=$(awk -v a="$x" 'BEGIN { printf "%.1f", a - 4 }')
    grep -q "<line x1=\"$x\" y1=\"$bottom\" x2=\"$x\" y2=\"[0-9.]*\" stroke=\"black\"/>" one_dk/curves_sort_adamw.svg && zero=$((zero + 1))
    grep -q "<line x1=\"$left\" y1=\"$bottom\" x2=\"$x\" y2=\"$bottom\" stroke=\"black\"/>" one_dk/curves_sort_adamw.svg && loss_zero=$x
done < <(frames one_dk/curves_sort_adamw.svg)
rightmost=$(frames one_dk/curves_sort_adamw.svg | sort -n | tail -n 1 | cut -d' ' -f1)
if [ "$zero" -eq 3 ] && [ "$loss_zero" = "$rightmost" ]; then
    ok "the curves' step axis from 0 (no tick left of it) and the loss axis from 0"
else
    bad "axes from 0" "$zero of 3 panels with step 0 at their left edge; the loss axis's 0 at the bottom: panel x = $loss_zero"
fi

# ---------------------------------------------------------------- a study of 100 000 runs
# big_runs_csv N: a runs.csv of N done runs, 3 stages x 3 tasks x 2 optimizers x 5 scales x 5 dk x 4 lr, 50 variants in
# stage variants, the rest seeds (the shape of a real grid, made larger)
big_runs_csv() {
    awk -v n="$1" 'BEGIN {
        print "id,stage,task,optim,scale,dk,lr,seed,variant,status,steps,val_acc,val_loss,test_acc,test_loss,test_examples,final_loss,steps_to_threshold,nan_count,fp_overflows,fp_underflows,fp_nans,time_s,score_std_init,score_std_end,qgrad_median_init,qgrad_median_end,jac_median_end,entropy_norm_end,wq_grad_norm_init,scale_x_sqrt_dk_end,command"
        split("lr headline variants", stages, " "); split("sort recall translate", tasks, " "); split("adamw sgd", optims, " ")
        split("1 sqrt dk 8 learned-sqrt", scales, " "); split("16 32 64 128 256", dks, " "); split("1e-4 3e-4 1e-3 3e-3", lrs, " ")
        for (i = 0; i < n; i++) {
            k = i; st = stages[k % 3 + 1]; k = int(k / 3); t = tasks[k % 3 + 1]; k = int(k / 3); o = optims[k % 2 + 1]; k = int(k / 2)
            s = scales[k % 5 + 1]; k = int(k / 5); d = dks[k % 5 + 1]; k = int(k / 5); l = lrs[k % 4 + 1]; k = int(k / 4)
            v = st == "variants" ? "width=" (k % 50) : "-"
            printf "r%d,%s,%s,%s,%s,%s,%s,%d,%s,done,100,%.4f,0.5,%.4f,0.6,1000,0.4,-1,0,0,0,0,1.5,1.1,3.2,0.003,0.001,0.15,0.9,0.4,,\"./train --seed=%d\"\n",
                i, st, t, o, s, d, l, k, v, (i * 37 % 1000) / 1000, (i * 91 % 1000) / 1000, k
        } }' >"$2"
}
# big_folder N EVERY DIR: a result folder planning the same N runs, every EVERY-th one done, with its summary and log
big_folder() {
    mkdir -p "$3/runs"
    awk -F, -v every="$2" -v dir="$3" 'NR == 1 { print "id\tstage\ttask\toptim\tscale\tdk\tlr\tseed\tvariant\tcommand" >(dir "/jobs.tsv"); next }
        { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t./train --seed=" $8 >(dir "/jobs.tsv")
          if ((NR - 2) % every) next
          out = dir "/runs/" $1 ".out"; csv = dir "/runs/" $1 ".csv"
          printf "summary: steps=100 final_loss=0.4 val_loss=0.5 val_acc=%s steps_to_threshold=-1 nan_count=0 fp_overflows=0 fp_underflows=0 fp_nans=0 test_loss=0.6 test_acc=%s test_examples=1000 time_s=1.5\n", $12, $14 >out
          print "step,loss,l0_score_std,l0_qgrad_median,val_loss,val_acc,nan_count" >csv
          for (r = 0; r <= 10; r++) printf "%d,%.4f,%.3f,0.002,,,0\n", r ? r * 10 : 1, 3 - r * 0.2, 1 + r * 0.1 >csv
          close(out); close(csv) }' "$1"
}
# within_limits NAME CHECK ARGS...: ./report ARGS within 60 s of CPU time (ulimit -t: CPU seconds, so a busy machine
# does not make it fail) and, but under AddressSanitizer (which reserves terabytes of address space), 400 MB; then CHECK
limit_memory=$(ldd "$report" 2>/dev/null | grep -q asan || echo 400000)
within_limits() {
    local name=$1 check=$2 rc
    shift 2
    (
        ulimit -t 60
        [ -n "$limit_memory" ] && ulimit -v "$limit_memory"
        exec "$report" "$@"
    ) >big.out 2>big.err
    rc=$?
    if [ $rc -eq 0 ] && eval "$check"; then ok "$name within 60 s of CPU time${limit_memory:+ and 400 MB}"; else
        bad "$name" "exit $rc (137 or 152: over the CPU-time limit)" "$(head -c 300 big.err)"; fi
}
# Measured on 2 cores (-O3; under ASan): the runs.csv 1.3 s, 170 MB (3.2 s); the folder 2.5 s, 190 MB (6 s). Before
# the cells were indexed (db9ef0d) the time grew with the square of the rows: 5 000 rows took 3.6 s, 20 000 about
# 60 s, and 100 000 were killed here at the limit.
big_runs_csv 100000 big.csv
within_limits "a study of 100 000 runs from its runs.csv: tables and plots" \
    "grep -q '^| all | 100000 | 100000 | 0 | 0 |\$' big/summary.md && [ \$(wc -l <big/best_lr.tsv) -eq 601 ]" --runs big.csv --out big
big_folder big.csv 50 bigfolder
within_limits "a result folder of 100 000 planned runs, 2 000 done with logs" \
    "grep -q '^| all | 100000 | 2000 | 98000 | 0 |\$' bigfolder/summary.md && [ -f bigfolder/curves_sort_adamw.svg ]" bigfolder

# ---------------------------------------------------------------- the probe figure
# a probe output with two small tables (sections 5 and 6) makes one whole SVG,
# and a malformed table or a missing section is refused
{
    echo "## 5. Softmax entropy"; echo; echo "| dk | / 1 | / sqrt(dk) | / dk | / 8 | / 10 |"; echo "|---:|---:|---:|---:|---:|---:|"
    echo "| 16 | 1.400 | 3.700 | 4.130 | 4.050 | 4.100 |"; echo "| 64 | 0.580 | 3.690 | 4.150 | 3.690 | 3.850 |"; echo
    echo "## 6. Jacobian"; echo; echo "| dk | / 1 | / sqrt(dk) | / dk | / 8 | / 10 |"; echo "|---:|---:|---:|---:|---:|---:|"
    echo "| 16 | 0.295 | 0.182 | 0.128 | 0.140 | 0.133 |"; echo "| 64 | 0.210 | 0.183 | 0.125 | 0.183 | 0.163 |"; echo
} >probe.md
if "$report" --probe probe.md --out probe_out >out.txt 2>err.txt && [ -f probe_out/probe_softmax.svg ] &&
    [ "$(grep -c '<svg' probe_out/probe_softmax.svg)" -eq 1 ] && grep -q '</svg>' probe_out/probe_softmax.svg; then
    ok "--probe: probe_softmax.svg from the probe's tables"
else
    bad "--probe: probe_softmax.svg from the probe's tables" "$(cat err.txt)"
fi
sed 's/| 64 | 0.580 |/| 64 | x.580 |/' probe.md >probe_bad.md
refuse "--probe: a cell that is not a number is refused" 'is not a number' --probe probe_bad.md --out probe_out
grep -v '^## 6' probe.md >probe_no6.md
refuse "--probe: a missing section is refused" 'no table under' --probe probe_no6.md --out probe_out
refuse "--probe with a folder is refused" 'alone' --probe probe.md somefolder

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
