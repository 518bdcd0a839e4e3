#!/usr/bin/env bash
# tape_figure.sh - the README's picture of one training step: the tape of a tiny 1-layer model
# (./train --tape-dot) as docs/tape_example.dot, rendered by Graphviz to docs/tape_example.svg.
#
#   scripts/tape_figure.sh          (needs ./train built, and `dot`: apt-get install graphviz)
#
# Without Graphviz the .dot is still written, and the script says so and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
train=${TRAIN:-./train}
[ -x "$train" ] || { echo "error: $train is not built (run make)" >&2; exit 2; }

# tiny on purpose: the shapes stay readable (a batch of 2 x 8 positions, dmodel 16, 2 heads of dk 8)
"$train" --tape-dot=docs/tape_example.dot --layers=1 --dmodel=16 --heads=2 --batch=2 --min-len=3 --max-len=3 \
    --val-size=8 --seed=1 --threads=1 --quiet >/dev/null
echo "wrote docs/tape_example.dot"
if ! command -v dot >/dev/null 2>&1; then
    echo "Graphviz is not installed: render it with  dot -Tsvg docs/tape_example.dot > docs/tape_example.svg" >&2
    exit 1
fi
dot -Tsvg docs/tape_example.dot >docs/tape_example.svg.tmp
mv docs/tape_example.svg.tmp docs/tape_example.svg
echo "wrote docs/tape_example.svg"
