#!/usr/bin/env bash
# ablation.sh - the scale ablation: ./train over scale x dk x task x seed, then ./report.
#
#   scripts/ablation.sh [--quick] [--jobs N] [--seeds N] [--name NAME] [--out DIR] [--print-jobs]
#                       [--scales "1 sqrt dk 8 learned"] [--dks "16 64 256"] [--tasks "copy translate"]
#                       [--config FILE] [-- extra ./train flags]
#
# Options take their value as --opt VALUE or --opt=VALUE. Relative paths (--out, --config, TRAIN,
# REPORT) are taken from the directory you run the script in, wherever the script lives.
#
# Everything but task, scale, dk and seed comes from the config (configs/ablation.cfg), so the
# runs differ only in what is being compared. Each run uses one thread; --jobs runs several at
# once (default: the number of cores). Results go to results/NAME/ under the current directory
# (or --out DIR): runs/*.csv (each run's log), runs/*.out (its console output), summary.csv,
# summary.md and the SVG plots.
#
# A run whose .out file exists is complete and is skipped, so an interrupted grid resumes where
# it stopped. --print-jobs prints one command per line instead of running them (for GNU
# parallel or a cluster's job array; every path in them is absolute, so they run from any
# directory); run the script again afterwards to make the report.
# --quick is a small grid (2 scales x 2 dk x copy x 1 seed, 150 steps) that finishes in well
# under two minutes; the test suite runs it. It fixes the grid, so it refuses --scales, --dks,
# --tasks and --seeds.
#
# Environment: TRAIN and REPORT override the programs (default: train and report next to scripts/).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
here=$PWD

scales="1 sqrt dk 8 learned"
dks="16 64 256"
tasks="copy translate"
seeds=3
jobs=$(nproc 2>/dev/null || echo 2)
name=""
out=""
config=$root/configs/ablation.cfg
print_jobs=0
quick=0
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
    --help | -h) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick | --print-jobs) opt=$arg; value="" ;;
    --*=*) opt=${arg%%=*}; value=${arg#*=} ;;
    --*)
        opt=$arg
        [ $# -gt 0 ] || die "$opt needs a value (see --help)"
        value=$1
        shift
        ;;
    *) die "unexpected argument \"$arg\" (see --help; ./train flags go after --)" ;;
    esac
    case "$given" in *" $opt "*) die "$opt given twice" ;; esac
    given="$given$opt "
    case "$opt" in
    --quick | --print-jobs) [ "$arg" = "$opt" ] || die "$opt takes no value" ;;
    --jobs | --seeds | --name | --out | --scales | --dks | --tasks | --config)
        [ -n "$value" ] || die "$opt needs a value (see --help)" ;;
    *) die "unknown option $opt (see --help)" ;;
    esac
    case "$opt" in
    --quick) quick=1 ;;
    --print-jobs) print_jobs=1 ;;
    --jobs) jobs=$value ;;
    --seeds) seeds=$value ;;
    --name) name=$value ;;
    --out) out=$(absolute "$value") ;;
    --scales) scales=$value ;;
    --dks) dks=$value ;;
    --tasks) tasks=$value ;;
    --config) config=$(absolute "$value") ;;
    esac
done

# The grid sets these ./train flags itself; given again after -- they would make every run the same.
for e in ${extra[@]+"${extra[@]}"}; do
    case "$e" in
    --task | --task=* | --scale | --scale=* | --dk | --dk=* | --seed | --seed=* | --threads | --threads=* | --log | --log=* | \
        --config | --config=* | --save | --save=* | --load | --load=* | --dump-state | --dump-state=*)
        die "${e%%=*} after -- conflicts with the grid (it sets task, scale, dk, seed, threads and the log of each run)" ;;
    --[a-z]*) ;;
    *) die "\"$e\" after --: ./train takes flags as --name=value (a value may not follow in the next word)" ;;
    esac
done
if [ "$quick" = 1 ]; then
    for opt in --scales --dks --tasks --seeds; do
        case "$given" in *" $opt "*) die "--quick fixes the grid: it cannot be combined with $opt" ;; esac
    done
    scales="1 sqrt"
    dks="16 64"
    tasks="copy"
    seeds=1
    extra=(--steps=150 --eval-every=50 --eval-examples=64 --val-size=128 ${extra[@]+"${extra[@]}"})
    name=${name:-quick}
fi
name=${name:-grid}
case "$name" in */* | . | ..) die "--name=$name: a name, not a path (use --out for a folder)" ;; esac
train=$(absolute "${TRAIN:-$root/train}")
report=$(absolute "${REPORT:-$root/report}")
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs=$jobs: expected a positive integer"
[[ "$seeds" =~ ^[1-9][0-9]*$ ]] || die "--seeds=$seeds: expected a positive integer"
for list in "$scales" "$dks" "$tasks"; do
    [ -n "${list// /}" ] || die "an empty list of scales, dks or tasks"
    for w in $list; do [[ "$w" =~ ^[A-Za-z0-9.+-]+$ ]] || die "\"$w\": not a scale, dk or task name"; done
done
[ -f "$config" ] || die "no config file $config"
[ -x "$train" ] || die "$train is not built (run make)"

out=${out:-$here/results/$name}
runs=$out/runs
[ ! -e "$out" ] || [ -d "$out" ] || die "--out=$out exists and is not a folder"
mkdir -p "$runs"

# One command per run that is not complete yet. The console output goes to .out.tmp and is
# renamed to .out only when the run succeeds: a .out file means "done". Every path is absolute
# and quoted (printf %q), so a line runs from any directory and with any folder name.
q() { printf '%q' "$1"; }
commands=()
for task in $tasks; do
    for scale in $scales; do
        for dk in $dks; do
            for seed in $(seq 1 "$seeds"); do
                run="${task}_scale-${scale}_dk${dk}_seed${seed}"
                [ -f "$runs/$run.out" ] && continue
                cmd="$(q "$train") --config=$(q "$config") --task=$task --scale=$scale --dk=$dk --seed=$seed --threads=1"
                cmd="$cmd --log=$(q "$runs/$run.csv")"
                for e in ${extra[@]+"${extra[@]}"}; do cmd="$cmd $(q "$e")"; done
                cmd="$cmd >$(q "$runs/$run.out.tmp") 2>&1 && mv $(q "$runs/$run.out.tmp") $(q "$runs/$run.out")"
                commands+=("$cmd")
            done
        done
    done
done

if [ "$print_jobs" = 1 ]; then
    [ ${#commands[@]} -eq 0 ] || printf '%s\n' "${commands[@]}"
    exit 0
fi

total=$(( $(echo "$tasks" | wc -w) * $(echo "$scales" | wc -w) * $(echo "$dks" | wc -w) * seeds ))
echo "ablation $name: $total runs, ${#commands[@]} to do, $jobs at a time -> $out"
start=$(date +%s)
if [ ${#commands[@]} -gt 0 ]; then
    # xargs runs them in parallel, one line = one bash -c; a failed run leaves no .out and is reported at the end
    printf '%s\n' "${commands[@]}" | xargs -d '\n' -n 1 -P "$jobs" bash -c || true
fi
failed=$(find "$runs" -name '*.out.tmp' | wc -l)
echo "ablation $name: runs finished in $(( $(date +%s) - start )) s"
if [ "$failed" -gt 0 ]; then
    echo "error: $failed runs failed; their output is in $runs/*.out.tmp" >&2
    exit 1
fi
"$report" "$out"
