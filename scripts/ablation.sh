#!/usr/bin/env bash
# ablation.sh - the scale ablation: ./train over scale x dk x task x seed, then ./report.
#
#   scripts/ablation.sh [--quick] [--jobs N] [--seeds N] [--name NAME] [--out DIR] [--print-jobs]
#                       [--scales "1 sqrt dk 8 learned"] [--dks "16 64 256"] [--tasks "copy translate"]
#                       [--config FILE] [-- extra ./train flags]
#
# Everything but task, scale, dk and seed comes from the config (configs/ablation.cfg), so the
# runs differ only in what is being compared. Each run uses one thread; --jobs runs several at
# once (default: the number of cores). Results go to results/NAME/ (or --out DIR): runs/*.csv (each run's log),
# runs/*.out (its console output), summary.csv, summary.md and the SVG plots.
#
# A run whose .out file exists is complete and is skipped, so an interrupted grid resumes where
# it stopped. --print-jobs prints one command per line instead of running them (for GNU
# parallel or a cluster's job array); run the script again afterwards to make the report.
# --quick is a small grid (2 scales x 2 dk x copy x 1 seed, 150 steps) that finishes in well
# under two minutes; the test suite runs it.
#
# Environment: TRAIN and REPORT override the programs (default ./train and ./report).
set -euo pipefail
cd "$(dirname "$0")/.."

scales="1 sqrt dk 8 learned"
dks="16 64 256"
tasks="copy translate"
seeds=3
jobs=$(nproc 2>/dev/null || echo 2)
name=""
out=""
config=configs/ablation.cfg
print_jobs=0
quick=0
extra=()

die() { echo "error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --seeds) seeds=${2:?--seeds needs a number}; shift ;;
    --name) name=${2:?--name needs a name}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --scales) scales=${2:?--scales needs a list}; shift ;;
    --dks) dks=${2:?--dks needs a list}; shift ;;
    --tasks) tasks=${2:?--tasks needs a list}; shift ;;
    --config) config=${2:?--config needs a file}; shift ;;
    --print-jobs) print_jobs=1 ;;
    --help | -h) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
if [ "$quick" = 1 ]; then
    scales="1 sqrt"
    dks="16 64"
    tasks="copy"
    seeds=1
    extra=(--steps=150 --eval-every=50 --eval-examples=64 --val-size=128 "${extra[@]}")
    name=${name:-quick}
fi
name=${name:-grid}
train=${TRAIN:-./train}
report=${REPORT:-./report}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer"
[[ "$seeds" =~ ^[1-9][0-9]*$ ]] || die "--seeds must be a positive integer"
[ -f "$config" ] || die "no config file $config"
[ -x "$train" ] || die "$train is not built (run make)"

out=${out:-results/$name}
runs=$out/runs
mkdir -p "$runs"

# One command per run that is not complete yet. The console output goes to .out.tmp and is
# renamed to .out only when the run succeeds: a .out file means "done".
commands=()
for task in $tasks; do
    for scale in $scales; do
        for dk in $dks; do
            for seed in $(seq 1 "$seeds"); do
                run="${task}_scale-${scale}_dk${dk}_seed${seed}"
                [ -f "$runs/$run.out" ] && continue
                flags="--config=$config --task=$task --scale=$scale --dk=$dk --seed=$seed --threads=1 --log=$runs/$run.csv"
                for e in "${extra[@]}"; do flags="$flags $(printf '%q' "$e")"; done
                commands+=("$train $flags >$runs/$run.out.tmp 2>&1 && mv $runs/$run.out.tmp $runs/$run.out")
            done
        done
    done
done

if [ "$print_jobs" = 1 ]; then
    printf '%s\n' "${commands[@]}"
    exit 0
fi

total=$(( $(echo "$tasks" | wc -w) * $(echo "$scales" | wc -w) * $(echo "$dks" | wc -w) * seeds ))
echo "ablation $name: $total runs, ${#commands[@]} to do, $jobs at a time -> $out"
start=$(date +%s)
if [ ${#commands[@]} -gt 0 ]; then
    # xargs runs them in parallel; a failed run leaves no .out and is reported at the end
    printf '%s\n' "${commands[@]}" | xargs -d '\n' -P "$jobs" -I{} bash -c '{}' || true
fi
failed=$(find "$runs" -name '*.out.tmp' | wc -l)
echo "ablation $name: runs finished in $(( $(date +%s) - start )) s"
if [ "$failed" -gt 0 ]; then
    echo "error: $failed runs failed; their output is in $runs/*.out.tmp" >&2
    exit 1
fi
"$report" "$out"
