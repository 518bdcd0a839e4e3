#!/usr/bin/env bash
# tape_figure.sh - the picture of one training step in docs/USAGE.md: the tape of a tiny 1-layer
# model (./train --tape-dot) as DIR/tape_example.dot, rendered by Graphviz to DIR/tape_example.svg.
#
#   scripts/tape_figure.sh [--out DIR]   (DIR: docs/ of this repository by default; needs ./train
#                                         built, and `dot`: apt-get install graphviz)
#
# Without Graphviz the .dot is still written, and the script says so and exits 1.
# TRAIN=path/to/train overrides the program. tests/docs.sh checks that the committed .dot is
# what this script writes today.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/docs
usage="usage: scripts/tape_figure.sh [--out DIR]"
case "${1:-}" in
--out) out=${2:?--out needs a folder}; shift 2 ;;
--out=*) out=${1#--out=}; shift ;;
"") ;;
*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -eq 0 ] || { echo "$usage" >&2; exit 2; }
train=${TRAIN:-$root/train}
[ -x "$train" ] || { echo "error: $train is not built (run make)" >&2; exit 2; }
mkdir -p "$out"

# tiny on purpose: the shapes stay readable (a batch of 2 x 8 positions, dmodel 16, 2 heads of dk 8)
"$train" --tape-dot="$out/tape_example.dot" --layers=1 --dmodel=16 --heads=2 --batch=2 --min-len=3 --max-len=3 \
    --val-size=8 --seed=1 --threads=1 --quiet >/dev/null
echo "wrote $out/tape_example.dot"
if ! command -v dot >/dev/null 2>&1; then
    echo "Graphviz is not installed: render it with  dot -Tsvg $out/tape_example.dot > $out/tape_example.svg" >&2
    exit 1
fi
dot -Tsvg "$out/tape_example.dot" >"$out/tape_example.svg.tmp"
mv "$out/tape_example.svg.tmp" "$out/tape_example.svg"
echo "wrote $out/tape_example.svg"
