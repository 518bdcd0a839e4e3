#!/usr/bin/env bash
# ablation.sh - the scale study of docs/ablation/DESIGN.md (the second study, pre-registered
# there): ./train over its two phases, then ./report.
#
#   scripts/ablation.sh [--quick | --standard | --full] [--phase 1|2] [--best-lr FILE]
#                       [--shard K/N] [--jobs N] [--out DIR] [--print-jobs] [-- extra ./train flags]
#   scripts/ablation.sh --law-budget | --law-calibrate | --slower [--record FILE] [--jobs N] [--out DIR]
#   scripts/ablation.sh --law | --law-robust --seeds A-B [--record FILE] [--jobs N] [--out DIR]
#   scripts/ablation.sh --law-standard [--record FILE] [--jobs N] [--out DIR]
#
#   --quick     a tiny version of the study's two phases (lookup only, 150 steps, about 10 runs):
#               for the tests, well under 2 minutes
#   --standard  the primary cells at dk 16 and 64 on the test seeds, at the learning rates the
#               full study chose (--best-lr, default docs/ablation/best_lr.tsv)
#   --full      everything (the default). Phase 1, the learning-rate sweeps of every cell of the
#               design (`./report --design`: tasks, cells and each task's flags), seeds 101, 102,
#               ... at each rate (the design's sweep_seeds: 5 on lookup and recall, 3 on reverse)
#               on the validation split, from 3 rates, in rounds: after each round the report
#               chooses each cell's rate, and a cell whose best rate is the lowest or highest swept
#               gets the next rate beyond it (x or / sqrt(10)), until every best rate is interior
#               (or at the end of the ladder, 1e-5 to 0.1). Phase 2: every cell at its chosen rate
#               on 10 test seeds, on the test split.
#   --law-budget     the law experiment's calibration of its budget (docs/ablation/DESIGN.md, "Pre-
#               registration: the law"): the c grid under both inits on seeds 201 and 202 at dk 16,
#               then 1024, for each candidate (steps, rate) in turn until one qualifies (at each dk,
#               init and seed some c reaches the loss threshold and some does not); writes
#               law_budget.tsv. Default --out results/law
#   --law-calibrate  then the whole c grid at every dk at that budget on seeds 201 and 202
#   --law       the law experiment: the whole grid at every dk at the calibrated budget
#               (law_budget.tsv) on seeds A to B (--seeds, within 301 .. 300 + n, n the seeds the
#               calibration's report sized: law.md); a tier of a few seeds fits in 2 hours
#   --law-robust  the robustness arm: the c grid at half and twice that rate at dk 16, 128 and
#               1024 under unit init, on seeds A to B (--seeds, within 301 .. 305); 2 seeds fit 2 hours
#   --law-standard  the law's headline cells again, in about 15 minutes: the c grid under the
#               premise (unit init) at the ends, dk 16 and 1024, on the experiment's first seed
#               (301), at the calibrated budget (law_budget.tsv beside the record), each compared with the record's
#               row of the same run (every summary field but the time): "N of N as recorded".
#               Default --out results/law-standard
#   --record FILE  these tiers' runs.csv as committed by earlier sessions (default
#               docs/ablation/law/runs.csv for the law's tiers, docs/ablation/slower/runs.csv for
#               --slower, none for --full (its committed study: docs/ablation/runs.csv); "none":
#               no record): a run done there is not run again, and the report
#               merges it with the folder's (./report --runs FILE --out DIR DIR), so that a tier
#               resumes across sessions whose results folders are gone
#   --slower    fails, or slower? (DESIGN.md): the primaries' failing cells at dk 64 and 1/sqrt(dk)
#               beside them, at five times the budget (5000 steps), each at the second study's
#               chosen rate (--best-lr, default docs/ablation/best_lr.tsv); 15 seeds on lookup, 22
#               on reverse, from 401. Default --out results/slower
#   --phase N   only phase 1 or only phase 2 of --full or --quick (phase 2 needs --best-lr, e.g.
#               from the report of phase 1)
#   --shard K/N only the K-th of every N planned runs (for N machines; N at most 1000000), of
#               phase 1's present round unless --phase 2; merge the folders with
#               ./report --out DIR FOLDER_1 ..., then run each shard again with --phase 1
#               --best-lr DIR/best_lr.tsv for the next round, until every shard has 0 to do
#   --jobs N    runs at once (1 to 1024; default: the number of cores)
#   --print-jobs  print the command of each run still to do, one per line, instead of running them
#               (xargs -P, GNU parallel, a Slurm job array: POSIX sh commands, every path absolute
#               and quoted, runnable from anywhere); stderr says how many are done. Once a round
#               is done (and not sharded), its report is made and the next round's runs, or phase
#               2's, are printed. Run the script again afterwards to make the report
#
# Options take their value as --opt VALUE or --opt=VALUE. Relative paths (--out, --best-lr, TRAIN,
# REPORT) are taken from the directory you run the script in. The runs share configs/ablation.cfg
# and differ only in the factors of their cell. Each run uses one thread; --jobs runs several at
# once (default: the number of cores). Results go to results/NAME/ under the current directory
# (NAME: quick, standard or full; or --out DIR): jobs.tsv (every planned run and its command),
# runs/ID.csv (a run's log), runs/ID.out (its console output: a run with an .out is complete and
# is skipped, so an interrupted study resumes), and the report (runs.csv, summary.md,
# outcomes.md, best_lr.tsv, SVG plots).
#
# Environment: TRAIN and REPORT override the programs (default: train and report next to scripts/).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
here=$PWD

tier=full
phase=""
best_lr=""
shard=""
jobs=$(nproc 2>/dev/null || echo 2)
out=""
print_jobs=0
law_seeds=""
record=""
extra=()
given=" "

die() { echo "error: $*" >&2; exit 2; }
# an absolute path for a path given relative to the caller's directory
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$here" "$1" ;; esac; }

while [ $# -gt 0 ]; do
    arg=$1
    shift
    case "$arg" in
    --) extra=("$@"); break ;;
    --help | -h) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --quick | --standard | --full | --law-budget | --law-calibrate | --law | --law-robust | --law-standard | --slower | --print-jobs) opt=$arg; value="" ;;
    --*=*) opt=${arg%%=*}; value=${arg#*=} ;;
    --phase | --best-lr | --shard | --jobs | --out | --seeds | --record)
        opt=$arg
        [ $# -gt 0 ] || die "$opt needs a value (see --help)"
        value=$1
        shift
        ;;
    --*) opt=$arg; value="" ;; # unknown: said below, before any value is taken
    *) die "unexpected argument \"$arg\" (see --help; ./train flags go after --)" ;;
    esac
    case "$given" in *" $opt "*) die "$opt given twice" ;; esac
    given="$given$opt "
    case "$opt" in
    --quick | --standard | --full | --law-budget | --law-calibrate | --law | --law-robust | --law-standard | --slower | --print-jobs) [ "$arg" = "$opt" ] || die "$opt takes no value" ;;
    --phase | --best-lr | --shard | --jobs | --out | --seeds | --record) [ -n "$value" ] || die "$opt needs a value (see --help)" ;;
    *) die "unknown option $opt (the options: --quick --standard --full --law-budget --law-calibrate --law --law-robust --law-standard --slower --print-jobs --phase --best-lr --shard --jobs --out --seeds --record; see --help)" ;;
    esac
    case "$opt" in
    --quick | --standard | --full | --law-budget | --law-calibrate | --law | --law-robust | --law-standard | --slower) tier=${opt#--} ;;
    --seeds) law_seeds=$value ;;
    --record) record=$([ "$value" = none ] && echo none || absolute "$value") ;;
    --print-jobs) print_jobs=1 ;;
    --phase) phase=$value ;;
    --best-lr) best_lr=$(absolute "$value") ;;
    --shard) shard=$value ;;
    --jobs) jobs=$value ;;
    --out) out=$(absolute "$value") ;;
    esac
done
n_tiers=0
for t in --quick --standard --full --law-budget --law-calibrate --law --law-robust --law-standard --slower; do case "$given" in *" $t "*) n_tiers=$((n_tiers + 1)) ;; esac; done
[ "$n_tiers" -le 1 ] || die "--quick, --standard, --full, --law-budget, --law-calibrate, --law, --law-robust, --law-standard and --slower are tiers: give one"
case "$tier" in law | law-robust) ;; *) [ -z "${law_seeds:-}" ] || die "--seeds is for --law and --law-robust" ;; esac
case "$tier" in
law*) record=${record:-$root/docs/ablation/law/runs.csv} ;;
slower) record=${record:-$root/docs/ablation/slower/runs.csv} ;;
full) ;; # no record unless given (docs/ablation/runs.csv: the committed study)
*) [ -z "$record" ] || die "--record is for --full, the law's tiers and --slower" ;;
esac
[ "$record" != none ] || record=""
case "$tier" in law | law-robust) [ -n "${law_seeds:-}" ] || die "--$tier needs --seeds A-B (a tier of its seeds, e.g. 301-303)" ;; esac
case "$tier" in
law* | slower)
    for t in --phase --shard --print-jobs; do
        case "$given" in *" $t "*) die "$t is for the second study's tiers, not --$tier" ;; esac
    done
    ;;
esac

# The study sets these ./train flags itself; given again after -- they would make every run the same.
for e in ${extra[@]+"${extra[@]}"}; do
    case "$e" in
    --task | --task=* | --scale | --scale=* | --dk | --dk=* | --seed | --seed=* | --threads | --threads=* | --log | --log=* | \
        --config | --config=* | --save | --save=* | --load | --load=* | --dump-state | --dump-state=* | --lr | --lr=* | \
        --min-lr | --min-lr=* | --optim | --optim=* | --momentum | --momentum=* | --scale-init | --scale-init=*)
        die "${e%%=*} after -- conflicts with the study (it sets task, scale, dk, seed, optimizer, learning rate, threads and the log of each run)" ;;
    --[a-z]*) ;;
    *) die "\"$e\" after --: ./train takes flags as --name=value (a value may not follow in the next word)" ;;
    esac
done
# count_at_most VALUE MAX: VALUE is a whole number from 1 to MAX (compared as text first: bash's
# arithmetic would wrap a number of 20 digits)
count_at_most() { [[ "$1" =~ ^[1-9][0-9]*$ ]] && [ ${#1} -le ${#2} ] && [ "$1" -le "$2" ]; }
count_at_most "$jobs" 1024 || die "--jobs=$jobs: expected a whole number from 1 to 1024"
case "$phase" in "" | 1 | 2) ;; *) die "--phase=$phase: 1 (the learning-rate sweeps) or 2 (the rest)" ;; esac
[ -z "$phase" ] || [ "$tier" != standard ] || die "--phase is for --full and --quick (--standard is one stage of phase 2)"
shard_k=1 shard_n=1
if [ -n "$shard" ]; then
    [[ "$shard" =~ ^([0-9]+)/([0-9]+)$ ]] || die "--shard=$shard: expected K/N, e.g. 1/4"
    shard_k=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
    count_at_most "$shard_n" 1000000 || die "--shard=$shard: N must be a whole number from 1 to 1000000"
    count_at_most "$shard_k" "$shard_n" || die "--shard=$shard: K must be a whole number from 1 to N"
fi
case "$tier" in standard | slower) best_lr=${best_lr:-$root/docs/ablation/best_lr.tsv} ;; esac
case "$tier" in law*) [ -z "$best_lr" ] || die "--best-lr is not for --$tier (one rate for every cell: the calibration's)" ;; esac
train=$(absolute "${TRAIN:-$root/train}")
report=$(absolute "${REPORT:-$root/report}")
config=$root/configs/ablation.cfg
config_steps=$(awk -F= '$1 ~ /^ *steps *$/ { gsub(/ /, "", $2); print $2 }' "$config")
[ -f "$config" ] || die "no config file $config"
[ -x "$train" ] || die "$train is not built (run make)"
[ -x "$report" ] || die "$report is not built (run make)"
study=$("$report" --design) || die "$report --design failed (is ./report built from this tree?)"
# The attention scales: name, ./train's flags, label (model/scale_table.c; "<c>" is any number)
scales=$("$report" --scales) || die "$report --scales failed (is ./report built from this tree?)"
case "$tier" in law-standard) out=${out:-$here/results/law-standard} ;; law*) out=${out:-$here/results/law} ;; *) out=${out:-$here/results/$tier} ;; esac
[ ! -e "$out" ] || [ -d "$out" ] || die "--out=$out exists and is not a folder"
# each run's command is one line of jobs.tsv and of --print-jobs
for w in "$train" "$config" "$out" ${extra[@]+"${extra[@]}"}; do
    case "$w" in
    *$'\n'* | *$'\t'*) w=${w//$'\n'/\\n}; die "\"${w//$'\t'/\\t}\": a newline or a tab cannot be in a path or flag of the study (each run's command is one line)" ;;
    esac
done

# ---------------------------------------------------------------- the design (docs/ablation/DESIGN.md)
# What every run shares besides configs/ablation.cfg: the held-out sets (validation, for choosing
# settings; test, for what is reported) and one thread.
common=(--config="$config" --threads=1 --val-size=512 --eval-examples=512 --test-size=1000)
tier_flags="" # appended to every run's flags (--quick shortens the runs)
# The tasks (with their calibrated ./train flags) and the cells the study runs on each: one table,
# in lab/study/report_outcome_table.c, printed by `./report --design` (task, role, optim, scale, dk,
# variant, flags, then the task's success threshold, chance and test); read once here.
study_design() { printf '%s\n' "$study" | tail -n +2; }
design_lines() { study_design; } # the cells of this tier (--quick: a few)
# task_flags TASK: the task's flags, as the study's design gives them (its 7th column)
task_flags() { study_design | awk -F'\t' -v t="$1" '$1 == t && !found { print $7; found = 1 }'; }
# csv_unquoted FILE: a runs.csv with its quoted fields (the variant with a comma, the command)
# emptied, so that awk -F, splits it at the CSV's own commas
csv_unquoted() { sed 's/"[^"]*"//g' "$1"; }
optim_flags() { case "$1" in adamw) echo "--optim=adamw" ;; sgd) echo "--optim=sgd --momentum=0.9" ;; esac; }
# ./train's flags for a scale name, from the scale table (a number: the "<c>" row's, with it)
declare -A scale_flag_of
while IFS= read -r scale_line; do # name TAB flags TAB label; the flags may be empty
    scale_rest=${scale_line#*$'\t'}
    scale_flag_of[${scale_line%%$'\t'*}]=${scale_rest%%$'\t'*}
done < <(printf '%s\n' "$scales" | tail -n +2)
scale_flags() {
    local flags=${scale_flag_of[$1]-${scale_flag_of[<c>]}}
    printf '%s\n' "${flags//<c>/$1}"
}
# The learning rates a sweep may use, spaced by sqrt(10) (as %g prints them, as best_lr.tsv has
# them), and where a sweep starts; a sweep is extended one rate at a time towards its best.
ladder="0.00001 0.00003 0.0001 0.0003 0.001 0.003 0.01 0.03 0.1"
first_rates="0.0003 0.001 0.003"
sweep_seeds="" # the sweep's seeds (validation split): 101, 102, ..., as many as the design gives the task (--quick: its own)
test_seeds="11 12 13 14 15 16 17 18 19 20"

# plan STAGE TASK OPTIM SCALE DK LR SEED VARIANT TASK_FLAGS: one run of the design, as a jobs.tsv line
plan_lines=()
plan() {
    local stage=$1 task=$2 optim=$3 scale=$4 dk=$5 lr=$6 seed=$7 variant=$8 task_flags=$9
    local tag=${variant//=/-}
    tag=${tag//,/+}
    local id="${stage}_${task}_${optim}_s-${scale}_dk${dk}_lr${lr}_seed${seed}"
    [ "$variant" = - ] || id="${id}_${tag}"
    local flags
    flags="$task_flags $(optim_flags "$optim") $(scale_flags "$scale") --dk=$dk --lr=$lr"
    flags="$flags --min-lr=$(awk -v x="$lr" 'BEGIN { printf "%g", x / 10 }') --seed=$seed"
    if [ "$variant" != - ]; then
        local kv
        for kv in ${variant//,/ }; do flags="$flags --$kv"; done
    fi
    flags="$flags${tier_flags:+ $tier_flags}"
    plan_lines+=("$id"$'\t'"$stage"$'\t'"$task"$'\t'"$optim"$'\t'"$scale"$'\t'"$dk"$'\t'"$lr"$'\t'"$seed"$'\t'"$variant"$'\t'"$flags")
}

# cell_column TASK OPTIM SCALE DK VARIANT COLUMN: COLUMN of the cell's lines in best_lr.tsv (one per rate)
cell_column() {
    awk -F'\t' -v t="$1" -v o="$2" -v s="$3" -v d="$4" -v v="$5" -v c="$6" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["task"] == t && $col["optim"] == o && $col["scale"] == s && $col["dk"] == d && $col["variant"] == v { print $col[c] }' "$best_lr"
}
# chosen_lr TASK OPTIM SCALE DK VARIANT: the rate phase 1 chose for that cell (from --best-lr)
chosen_lr() {
    local lr
    lr=$(cell_column "$@" chosen_lr | head -n 1)
    [ -n "$lr" ] || die "$best_lr has no chosen rate for task $1, $2, scale $3, dk $4, variant $5"
    echo "$lr"
}
# sweep_rates TASK OPTIM SCALE DK VARIANT: the rates to sweep for the cell: the first rates, or,
# once best_lr.tsv has the cell, the rates it was swept at plus one step beyond its chosen rate
# when that is the lowest or the highest swept (none beyond the ladder's ends)
sweep_rates() {
    local swept="" chosen=""
    if [ -n "$best_lr" ] && [ -f "$best_lr" ]; then
        swept=$(cell_column "$@" lr | tr '\n' ' ')
        chosen=$(cell_column "$@" chosen_lr | head -n 1)
    fi
    [ -n "$swept" ] || { echo "$first_rates"; return; }
    awk -v ladder="$ladder" -v swept="$swept" -v chosen="$chosen" 'BEGIN {
        n = split(ladder, l, " "); m = split(swept, s, " ")
        lo = n + 1; hi = 0
        for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) if (l[i] + 0 == s[j] + 0) { if (i < lo) lo = i; if (i > hi) hi = i }
        if (chosen != "" && chosen + 0 == l[lo] + 0 && lo > 1) lo--
        if (chosen != "" && chosen + 0 == l[hi] + 0 && hi < n) hi++
        for (i = lo; i <= hi; i++) printf "%s%s", l[i], i < hi ? " " : "\n" }'
}

# phase 1: learning-rate sweeps of every cell of the design (seeds sweep_seeds, validation
# accuracy), at the first rates, extended towards the best rate until it is interior
phase1() {
    local task role optim scale dk variant flags lr seed n_seeds seeds
    while IFS=$'\t' read -r task role optim scale dk variant flags _ _ _ n_seeds _; do
        [[ "${n_seeds:-}" =~ ^[1-9]$ ]] || die "$report --design gives task $task no count of sweep seeds (is ./report built from this tree?)"
        seeds=${sweep_seeds:-$(seq 101 $((100 + n_seeds)) | tr '\n' ' ')}
        for lr in $(sweep_rates "$task" "$optim" "$scale" "$dk" "$variant"); do for seed in $seeds; do
            plan lr "$task" "$optim" "$scale" "$dk" "$lr" "$seed" "$variant" "$flags"
        done; done
    done < <(design_lines)
}
# phase 2: every cell of the design at its chosen rate, seeds test_seeds, on the test split;
# --standard: the primary cells of dk <= 64 only
phase2() {
    local task role optim scale dk variant flags lr seed
    while IFS=$'\t' read -r task role optim scale dk variant flags _; do
        [ "$tier" != standard ] || { [ "$role" = primary ] && [ "$dk" -le 64 ]; } || continue
        lr=$(chosen_lr "$task" "$optim" "$scale" "$dk" "$variant")
        for seed in $test_seeds; do plan test "$task" "$optim" "$scale" "$dk" "$lr" "$seed" "$variant" "$flags"; done
    done < <(design_lines)
}

# --quick: both phases in miniature (set at the end): lookup, s = 1 and 1/sqrt(dk) at dk 16, 150
# steps, one sweep seed from two rates (so at least one round of extension), then two test seeds
quick_common=(--config="$config" --threads=1 --val-size=128 --eval-examples=128 --test-size=200)

# ---------------------------------------------------------------- running
runs=$out/runs
# q WORD: WORD quoted for any POSIX sh (dash runs `sh -c`; bash's $'...' is not POSIX): as it is
# when made of characters no shell treats specially, else in single quotes, each ' as '\''
q() {
    case "$1" in
    "" | *[!A-Za-z0-9_./=+:,@%-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
    *) printf '%s' "$1" ;;
    esac
}

# run_with_progress PROGRESS TOTAL TOTAL_WEIGHT START LABEL AFTER "ID<TAB>WEIGHT<TAB>COMMAND": runs
# one command, then appends its outcome and weight to PROGRESS (one short line: appends of that
# size do not interleave) and prints "[LABEL done/total] id ok|FAILED (seconds); failures so far;
# time left AFTER", the time left = the wall time so far x the weight left / the weight done
# (run_weight: larger dk and more steps take longer, so a plan in rising dk is not underestimated)
run_with_progress='
    progress=$1 total=$2 total_weight=$3 start=$4 label=$5 after=$6 line=$7
    id=${line%%$'"'"'\t'"'"'*} rest=${line#*$'"'"'\t'"'"'}
    weight=${rest%%$'"'"'\t'"'"'*} cmd=${rest#*$'"'"'\t'"'"'}
    t0=$(date +%s)
    if bash -c "$cmd"; then outcome=ok; else outcome=FAILED; fi
    now=$(date +%s)
    echo "$outcome $weight" >>"$progress"
    finished=$(wc -l <"$progress") failed=$(grep -c FAILED "$progress")
    done_weight=$(awk "{ w += \$2 } END { print w }" "$progress")
    left=$(( (now - start) * (total_weight - done_weight) / done_weight ))
    printf "[%s%d/%d] %s %s (%d s); %d failed so far; about %d min %02d s left%s\n" "$label" \
        "$finished" "$total" "$id" "$outcome" $((now - t0)) "$failed" $((left / 60)) $((left % 60)) "$after"
'

# The file where parallel runs count themselves (.progress.PID.XXXXXX, PID this script's) and the
# process group of the runs in progress: on exit, and on SIGINT, SIGTERM or SIGHUP (passed on to
# the runs, then waited for), the runs are stopped and the file removed. One left by a script
# killed outright (SIGKILL) is removed by the next start, once process PID no longer runs.
progress="" runs_group="" todo_left=0
stop_runs() {
    [ -z "$runs_group" ] || { kill "-$1" -- "-$runs_group" 2>/dev/null; wait 2>/dev/null; }
    runs_group=""
    [ -z "$progress" ] || rm -f "$progress"
}
trap 'stop_runs TERM' EXIT
trap 'stop_runs INT; exit 130' INT
trap 'stop_runs TERM; exit 143' TERM
trap 'stop_runs HUP; exit 129' HUP
remove_stale_progress() {
    local f pid
    for f in "$out"/.progress.*; do
        [ -f "$f" ] || continue
        pid=${f##*/.progress.}
        pid=${pid%%.*}
        [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || rm -f "$f"
    done
}

# run_weight PLAN_LINE: a run's expected cost, for the time left: steps x (dk + 128) / 1000 (the
# law's runs at 2000 steps took about 14 s + 0.11 s x dk each on 2 cores: 16 s at dk 16, 130 s
# at dk 1024), steps from the last --steps= of its flags, else the config's
run_weight() {
    local line=$1 steps=$config_steps dk flags
    dk=$(cut -f 6 <<<"$line")
    flags=${line##*$'\t'}
    [[ " $flags " =~ .*\ --steps=([0-9]+)\  ]] && steps=${BASH_REMATCH[1]}
    [[ "$dk" =~ ^[0-9]+$ ]] || dk=64
    echo $((steps * (dk + 128) / 1000 + 1))
}

# run_planned: writes the planned runs (this shard's) to jobs.tsv, then runs those not done
run_planned() {
    local k=0 mine=0 line id flags cmd
    local todo=()
    mkdir -p "$runs" 2>/dev/null && [ -w "$out" ] || die "--out=$out: cannot make a folder there, or write in it"
    [ -f "$out/jobs.tsv" ] || printf 'id\tstage\ttask\toptim\tscale\tdk\tlr\tseed\tvariant\tcommand\n' >"$out/jobs.tsv"
    for line in ${plan_lines[@]+"${plan_lines[@]}"}; do
        k=$((k + 1))
        [ $(((k - 1) % shard_n)) -eq $((shard_k - 1)) ] || continue
        mine=$((mine + 1))
        id=${line%%$'\t'*}
        flags=${line##*$'\t'}
        cmd="$(q "$train")"
        for f in "${common[@]}" $flags ${extra[@]+"${extra[@]}"}; do cmd="$cmd $(q "$f")"; done
        cmd="$cmd --log=$(q "$runs/$id.csv") >$(q "$runs/$id.out.tmp") 2>&1 && mv $(q "$runs/$id.out.tmp") $(q "$runs/$id.out")"
        local known
        known=$(awk -F'\t' -v id="$id" '$1 == id { print $10 }' "$out/jobs.tsv")
        if [ -z "$known" ]; then
            printf '%s\t%s\n' "${line%$'\t'*}" "$cmd" >>"$out/jobs.tsv"
        elif [ "$known" != "$cmd" ]; then
            die "$out/jobs.tsv already plans $id with another command (another study in this folder? use --out)"
        fi
        [ -f "$runs/$id.out" ] || [ -n "${recorded_done[$id]+x}" ] || todo+=("$id"$'\t'"$(run_weight "$line")"$'\t'"$cmd")
    done
    todo_left=${#todo[@]}
    remove_stale_progress
    if [ "$print_jobs" = 1 ]; then
        local t
        echo "ablation $tier${phase_label:+, ${phase_label%: }}: $mine runs planned${shard:+ in this shard}, $((mine - todo_left)) done, $todo_left printed" >&2
        for t in ${todo[@]+"${todo[@]}"}; do t=${t#*$'\t'}; printf '%s\n' "${t#*$'\t'}"; done
        return
    fi
    echo "ablation $tier${phase_label:+, ${phase_label%: }}: $k runs planned ($mine in this shard), ${#todo[@]} to do, $jobs at a time -> $out"
    local start
    start=$(date +%s)
    if [ ${#todo[@]} -gt 0 ]; then
        # xargs runs them in parallel, one line ("id<TAB>command") = one run_with_progress; a failed
        # run leaves no .out and is reported at the end
        # a run interrupted earlier (killed, machine restarted) left a .out.tmp: it is redone now,
        # and its stale output must not count as a failure of this invocation
        local t
        for t in "${todo[@]}"; do rm -f "$runs/${t%%$'\t'*}.out.tmp"; done
        local total_weight=0
        for t in "${todo[@]}"; do t=${t#*$'\t'}; total_weight=$((total_weight + ${t%%$'\t'*})); done
        progress=$(mktemp "$out/.progress.$$.XXXXXX")
        # in a process group of its own (set -m), so that a signal to this script alone reaches
        # every run too (stop_runs); waited for in the background, so that the trap runs at once
        set -m
        printf '%s\n' "${todo[@]}" |
            xargs -d '\n' -n 1 -P "$jobs" bash -c "$run_with_progress" _ "$progress" "${#todo[@]}" "$total_weight" "$start" \
                "$phase_label" "$phase_after" &
        set +m
        runs_group=$(jobs -p | tail -n 1)
        wait $! || true
        runs_group=""
        rm -f "$progress"
        progress=""
    fi
    # failures: runs of this invocation that left no .out (runs of the other phase do not count)
    local failed=0 t
    for t in ${todo[@]+"${todo[@]}"}; do [ -f "$runs/${t%%$'\t'*}.out" ] || failed=$((failed + 1)); done
    echo "ablation $tier: runs finished in $(($(date +%s) - start)) s"
    [ "$failed" -eq 0 ] || { echo "error: $failed runs failed; their output is in $runs/*.out.tmp" >&2; exit 1; }
}

# planned_in FUNCTION: how many runs FUNCTION plans (in a subshell, at a placeholder rate: the
# count of phase 2 does not depend on the rates phase 1 chooses)
planned_in() { (chosen_lr() { echo 0.001; }; plan_lines=(); "$1"; echo ${#plan_lines[@]}); }
phase_label="" phase_after=""

# the runs an earlier session recorded as done (--record), which are not run again
declare -A recorded_done=()
if [ -n "$record" ] && [ -f "$record" ]; then
    while IFS= read -r done_id; do recorded_done[$done_id]=1; done < <(csv_unquoted "$record" | awk -F, 'NR > 1 && $10 == "done" { print $1 }')
fi
# the report of the folder, merged with the record when there is one
report_folder() {
    if [ -n "$record" ] && [ -f "$record" ]; then "$report" --runs "$record" --out "$out" "$out"; else "$report" --out "$out" "$out"; fi
}
make_report() { [ "$print_jobs" = 1 ] || report_folder; }

# two_phases: the study in two phases. Phase 1 in rounds: the sweeps planned from the folder's
# own best_lr.tsv (or --best-lr's, for a shard), run, reported; again, until a round plans no
# new rate (every chosen rate interior, or at the ladder's end). Phase 2 at the rates it chose.
# --print-jobs prints the runs of the round still to do; once they are all done, it makes the
# report and prints the next round's, then phase 2's.
two_phases() {
    if [ "$phase" != 2 ]; then
        local n2 round=1 planned=-1 to=1
        n2=$(planned_in phase2)
        [ "$print_jobs" = 0 ] || to=2
        [ -n "$shard" ] || best_lr=$out/best_lr.tsv
        while :; do
            plan_lines=()
            phase1
            [ ${#plan_lines[@]} -gt "$planned" ] || break # the last report added no rate
            planned=${#plan_lines[@]}
            phase_label="phase 1 of 2, round $round: " phase_after=" in this round (then more rounds while a best rate is at an edge, then $n2 runs)"
            run_planned
            if [ -n "$shard" ]; then
                echo "note: the next round plans from all shards' results: merge them (./report --out DIR FOLDER ...), then run each shard again with --phase 1 --best-lr DIR/best_lr.tsv; when every shard has 0 to do, phase 1 is done: --phase 2 --best-lr DIR/best_lr.tsv" >&2
                exit 0
            elif [ "$print_jobs" = 1 ] && [ "$todo_left" -gt 0 ]; then
                echo "note: the next round's rates follow from these runs: run them, then --print-jobs again" >&2
                exit 0
            fi
            # the round is done: its report says where each cell's best rate is (made with
            # --print-jobs too; its lines on stderr)
            report_folder >&"$to"
            round=$((round + 1))
        done
        [ "$phase" != 1 ] || exit 0
    fi
    [ -n "$best_lr" ] && [ -f "$best_lr" ] || die "--phase 2 needs --best-lr FILE (the report of phase 1 writes best_lr.tsv)"
    phase_label="phase 2 of 2: " phase_after=""
    plan_lines=()
    phase2
    run_planned
    [ -n "$shard" ] || make_report
}

# ---------------------------------------------------------------- the law (docs/ablation/DESIGN.md, "Pre-registration: the law")
# lookup at width 64, s = c/sqrt(dk) over a grid of c, both inits of Wq and Wk; stage "cal" for
# the calibration's runs (seeds 201, 202), each run's steps in its variant
law_task=lookup
law_dks="16 32 64 128 256 512 1024"
law_cs="0.03125 0.0625 0.125 0.25 0.5 1 2 4 8 16" # c = 2^k, k = -5 ... 4
law_inits="unit xavier"
law_cal_seeds="201 202"
law_budgets="1000:0.001 1000:0.0003 2000:0.001 2000:0.0003 4000:0.001 4000:0.0003" # steps:rate, in order
# law_scale DK C: --scale's value for s = c/sqrt(dk), i.e. sqrt(dk)/c; a power of 2 when dk is
# an even power of 2, else 9 significant digits (enough for the float s to be that of c/sqrt(dk))
law_scale() { awk -v d="$1" -v c="$2" 'BEGIN { printf "%.9g", sqrt(d) / c }'; }
# law_plan STAGE DK STEPS LR SEEDS: the c grid at one dk, under both inits
law_plan() {
    local stage=$1 dk=$2 steps=$3 lr=$4 seeds=$5 flags init c seed
    flags=$(task_flags "$law_task")
    [ -n "$flags" ] || die "the study's design has no task $law_task"
    for init in $law_inits; do for c in $law_cs; do for seed in $seeds; do
        plan "$stage" "$law_task" adamw "$(law_scale "$dk" "$c")" "$dk" "$lr" "$seed" "qk-init=$init,steps=$steps" "$flags"
    done; done; done
}
# law_experiment: the grid at every dk on seeds --seeds A-B, which must lie within the n seeds
# that the calibration's report sized (law.md: "n = N seeds", from seed 301)
law_experiment() {
    local steps lr dk n seeds
    law_budget_read
    if [ ! -f "$out/law.md" ] && [ -n "$record" ] && [ -f "$record" ]; then # a new session: the record's report
        mkdir -p "$out" && "$report" --runs "$record" --out "$out" >/dev/null || die "$report --runs $record failed"
    fi
    [ -f "$out/law.md" ] || die "no $out/law.md: run --law-calibrate first (its report sizes the seeds)"
    n=$(awk -v h="## cal: $steps steps at lr $lr" '$0 == h { on = 1; next } /^## / { on = 0 }
        on && /^Seeds for the experiment/ && !/preliminary/ { if (match($0, /n = [0-9]+ seeds/)) print substr($0, RSTART + 4, RLENGTH - 10); exit }' "$out/law.md")
    [ -n "$n" ] || die "$out/law.md sizes no seeds at $steps steps, lr $lr (or only a preliminary n): run --law-calibrate to its end first"
    seeds=$(law_seed_list $((300 + n)) "the experiment" " (law.md: n = $n)") || exit 2
    plan_lines=()
    for dk in $law_dks; do law_plan law "$dk" "$steps" "$lr" "$seeds"; done
    phase_label="law experiment, seeds $law_seeds of 301-$((300 + n)): " phase_after=""
    run_planned
    make_report
}
# law_seed_list LAST WHOSE [WHY]: the seeds of --seeds A-B, which must lie within 301 .. LAST
law_seed_list() {
    [[ "$law_seeds" =~ ^([0-9]{1,6})-([0-9]{1,6})$ ]] || die "--seeds=$law_seeds: expected A-B, e.g. 301-303"
    local a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]}
    [ "$a" -ge 301 ] && [ "$a" -le "$b" ] && [ "$b" -le "$1" ] || die "--seeds=$law_seeds: $2's seeds are 301-$1${3:-}"
    seq "$a" "$b" | tr '\n' ' '
}

# law_robust: the robustness arm (DESIGN.md): the c grid again at half and twice the calibrated
# rate, at dk 16, 128 and 1024, under the premise (unit init), on seeds --seeds A-B of 301-305
law_robust_dks="16 128 1024"
law_robust_last_seed=305
law_robust() {
    local steps lr dk rate seeds saved_inits=$law_inits
    law_budget_read
    seeds=$(law_seed_list "$law_robust_last_seed" "the robustness arm") || exit 2
    plan_lines=()
    law_inits=unit
    for rate in $(awk -v r="$lr" 'BEGIN { printf "%g %g", r / 2, r * 2 }'); do
        for dk in $law_robust_dks; do law_plan robust "$dk" "$steps" "$rate" "$seeds"; done
    done
    law_inits=$saved_inits
    phase_label="law robustness arm, seeds $law_seeds, $steps steps at lr $lr / 2 and x 2: " phase_after=""
    run_planned
    make_report
}

# law_standard: the headline cells again (seed 301, unit init, dk 16 and 1024, the whole c grid) at
# the record's budget, in a folder of their own, then each run against the record's row
law_standard() {
    local steps lr dk id line want got same=0 total=0
    [ -n "$record" ] && [ -f "$record" ] || die "--law-standard compares with the law's record: no ${record:-record} (give --record FILE)"
    # the budget: the calibration's, committed beside the record
    local budget
    budget=$(dirname "$record")/law_budget.tsv
    [ -f "$budget" ] || die "no $budget beside the record"
    IFS=$'\t' read -r steps lr < <(tail -n +2 "$budget")
    [[ "${steps:-}" =~ ^[1-9][0-9]*$ ]] && [ -n "${lr:-}" ] || die "$budget: expected a line of steps and rate"
    plan_lines=()
    local saved_inits=$law_inits
    law_inits=unit
    for dk in 16 1024; do law_plan law "$dk" "$steps" "$lr" 301; done
    law_inits=$saved_inits
    phase_label="law standard, $steps steps at lr $lr: " phase_after=""
    local saved_record=$record
    record="" # run every one of them here (the record is what they are compared with)
    recorded_done=()
    run_planned
    record=$saved_record
    "$report" --out "$out" "$out" >/dev/null || die "$report $out failed"
    # every summary field but time_s, as runs.csv has them (the quoted fields emptied first)
    for line in "${plan_lines[@]}"; do
        id=${line%%$'\t'*}
        total=$((total + 1))
        want=$(csv_unquoted "$record" | awk -F, -v id="$id" '$1 == id && !found { $23 = ""; print; found = 1 }')
        got=$(csv_unquoted "$out/runs.csv" | awk -F, -v id="$id" '$1 == id && !found { $23 = ""; print; found = 1 }')
        if [ -n "$want" ] && [ "$want" = "$got" ]; then same=$((same + 1)); else echo "differs from the record: $id" >&2; fi
    done
    echo "law standard: $same of $total runs as recorded ($record)"
    [ "$same" = "$total" ] || exit 1
}

# ---------------------------------------------------------------- fails, or slower? (DESIGN.md)
# the cells (task, scale, variant) at dk 64, each at its chosen rate, at 5000 steps; seeds per task
slower_cells="lookup:1:- lookup:dk:- lookup:none:attn=additive lookup:sqrt:- reverse:1:- reverse:dk:- reverse:sqrt:-"
slower_steps=5000
slower_seeds() { case "$1" in lookup) seq 401 415 ;; reverse) seq 401 422 ;; esac; }
slower() {
    local cell task scale variant flags lr seed
    [ -f "$best_lr" ] || die "no chosen learning rates in $best_lr (give --best-lr)"
    plan_lines=()
    for cell in $slower_cells; do
        IFS=: read -r task scale variant <<<"$cell"
        flags=$(task_flags "$task")
        [ -n "$flags" ] || die "the study's design has no task $task"
        lr=$(chosen_lr "$task" adamw "$scale" 64 "$variant")
        [ "$variant" = - ] && variant="steps=$slower_steps" || variant="$variant,steps=$slower_steps"
        for seed in $(slower_seeds "$task"); do plan slower "$task" adamw "$scale" 64 "$lr" "$seed" "$variant" "$flags"; done
    done
    phase_label="fails, or slower?: " phase_after=""
    run_planned
    make_report
}

# law_qualifies STEPS LR: whether the calibration's runs at that budget so far qualify, as the
# report's law.md judges them (lab/study/report_law.c: at every dk, init and seed run, some c
# reached the loss threshold and some did not; its table shows the counts)
law_qualifies() {
    report_folder >"$out/.report.out" 2>&1 || die "$report $out failed: $(head -n 3 "$out/.report.out")"
    rm -f "$out/.report.out"
    local verdict
    verdict=$(awk -v h="## cal: $1 steps at lr $2" '$0 == h { on = 1; next } /^## / { on = 0 }
        on && /calibration.s rule/ { print ($0 ~ /[*][*]qualifies[*][*]/) ? "yes" : "no"; exit }' "$out/law.md")
    [ -n "$verdict" ] || die "$out/law.md has no calibration verdict for $1 steps at lr $2"
    [ "$verdict" = yes ]
}
# law_budget: the candidates in order, each at dk 16 then 1024 (the second only when the first
# qualifies: the rule needs both), until one qualifies; it is written to law_budget.tsv
law_budget() {
    local b steps lr dk ok
    for b in $law_budgets; do
        steps=${b%%:*} lr=${b#*:} ok=1
        for dk in 16 1024; do
            plan_lines=()
            law_plan cal "$dk" "$steps" "$lr" "$law_cal_seeds"
            phase_label="law budget $steps steps at lr $lr, dk $dk: " phase_after=""
            run_planned
            if law_qualifies "$steps" "$lr"; then echo "qualifies up to dk $dk ($out/law.md)"; else
                ok=0
                echo "does not qualify at dk $dk ($out/law.md)"
                break
            fi
        done
        if [ "$ok" = 1 ]; then
            printf 'steps\tlr\n%s\t%s\n' "$steps" "$lr" >"$out/law_budget.tsv.tmp" && mv "$out/law_budget.tsv.tmp" "$out/law_budget.tsv"
            echo "the law's budget: $steps steps at lr $lr ($out/law_budget.tsv)"
            return
        fi
    done
    die "no candidate budget qualifies: the design is to be amended in docs/ablation/DESIGN.md before any run of the experiment"
}
# law_budget_read: steps and lr from law_budget.tsv (--law-budget writes it)
law_budget_read() {
    # a new session: the record's budget, committed beside it
    if [ ! -f "$out/law_budget.tsv" ] && [ -n "$record" ] && [ -f "$(dirname "$record")/law_budget.tsv" ]; then
        mkdir -p "$out" && cp "$(dirname "$record")/law_budget.tsv" "$out/law_budget.tsv" || die "cannot copy the record's law_budget.tsv into $out"
    fi
    [ -f "$out/law_budget.tsv" ] || die "no $out/law_budget.tsv: run --law-budget first"
    IFS=$'\t' read -r steps lr < <(tail -n +2 "$out/law_budget.tsv")
    [[ "$steps" =~ ^[1-9][0-9]*$ ]] && [[ "$lr" =~ ^[0-9.e-]+$ ]] || die "$out/law_budget.tsv: expected a line of steps and rate"
}
# law_calibrate: the whole grid at every dk at the calibrated budget, on the calibration seeds
law_calibrate() {
    local steps lr dk
    law_budget_read
    plan_lines=()
    for dk in $law_dks; do law_plan cal "$dk" "$steps" "$lr" "$law_cal_seeds"; done
    phase_label="law calibration, $steps steps at lr $lr: " phase_after=""
    run_planned
    make_report
}

case "$tier" in
quick)
    common=("${quick_common[@]}")
    tier_flags="--steps=150 --eval-every=50"
    ladder="0.0003 0.001 0.003 0.01" first_rates="0.001 0.003" sweep_seeds="101" test_seeds="11 12"
    design_lines() { study_design | awk -F'\t' '$1 == "lookup" && $3 == "adamw" && $5 == 16 && $6 == "-" && ($4 == "1" || $4 == "sqrt")'; }
    two_phases
    ;;
standard)
    [ -f "$best_lr" ] || die "no chosen learning rates in $best_lr (run the full study's phase 1, or give --best-lr)"
    phase2
    run_planned
    [ -n "$shard" ] || make_report
    ;;
full)
    two_phases
    ;;
law-budget)
    law_budget
    ;;
law-calibrate)
    law_calibrate
    ;;
slower)
    slower
    ;;
law)
    law_experiment
    ;;
law-robust)
    law_robust
    ;;
law-standard)
    law_standard
    ;;
esac
