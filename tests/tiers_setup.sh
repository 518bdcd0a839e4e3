# tiers_setup.sh - sourced by the tests that follow scripts/ablation.sh's tiers with a stand-in for
# ./train (tests/law_tiers.sh, tests/study_record.sh):
#
#   . "$(dirname "$0")/tiers_setup.sh" NAME BIN_DIR
#
# sets root (the tree), report (BIN_DIR's), dir (a fresh scratch folder NAME, the working
# directory from here on, so that whatever a run writes lands there), ok/bad and their counts;
# puts the stand-in (tests/stand_in_train.sh) at $dir/train, its calls logged in $dir/calls.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
report=$(cd "$2" && pwd)/report
dir=${TEST_TMPDIR:-$(mktemp -d)}/$1
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 2
passed=0 failed=0
ok() { echo "ok    $1"; passed=$((passed + 1)); }
bad() { echo "FAIL  $1"; shift; for l in "$@"; do echo "    $l"; done; failed=$((failed + 1)); }
cp "$root/tests/stand_in_train.sh" "$dir/train"
export STAND_IN_CALLS=$dir/calls
