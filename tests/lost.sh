#!/usr/bin/env bash
# lost.sh - "nothing lost, whatever the user types" (docs/RELIABILITY.md): outputs that would
# overwrite inputs or each other, special files, full disks, signals, leftovers of killed saves,
# byte-order marks, resuming from another directory, and the scripts' own inputs.
# Prints "N passed, N failed".
#
#   tests/lost.sh BIN_DIR      the folder holding train, probe and report (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/lost.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
train=$bin/train
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TEST_TMPDIR:-$(mktemp -d)}/lost
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 2
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }
sum() { cksum <"$1" 2>/dev/null; }
# ckpt_step FILE: the step a checkpoint was saved at (from its metadata)
ckpt_step() { grep -a -o '"step":"[0-9]*"' "$1" 2>/dev/null | head -n 1 | tr -dc 0-9; }
# same_tensors A B: the data sections (every tensor's bytes) of two checkpoints are equal
data_of() { tail -c +$((9 + $(od -An -t u8 -N 8 "$1"))) "$1"; }
same_tensors() { [ -s "$1" ] && [ -s "$2" ] && cmp -s <(data_of "$1") <(data_of "$2"); }

small=(--layers=1 --dmodel=32 --heads=2 --batch=8 --max-len=5 --val-size=64 --eval-examples=32 --quiet)

# ---------------------------------------------------------------- inputs and outputs
# Files to protect: a corpus, a checkpoint, a config, and a symlink to the checkpoint.
for i in $(seq 1 40); do printf 's%d a%d\tt%d b%d\n' "$i" $((i % 5)) "$i" $((i % 4)); done >corpus.tsv
"$train" "${small[@]}" --steps=3 --save=model.st >/dev/null 2>&1
printf 'layers = 1\ndmodel = 32\n' >run.cfg
ln -s model.st link.st
mkdir sub
before="$(sum corpus.tsv) $(sum model.st) $(sum run.cfg)"

# refuse CASE EXPECT ARGS...: exit 2, a message with EXPECT, every input unchanged
refuse() {
    local name=$1 expect=$2 rc
    shift 2
    timeout 20 "$train" "$@" >out.txt 2>err.txt
    rc=$?
    local after="$(sum corpus.tsv) $(sum model.st) $(sum run.cfg)"
    if [ $rc -eq 2 ] && grep -q -- "$expect" err.txt && [ "$after" = "$before" ] && [ -f model.st ] && [ ! -L model.st ]; then
        ok "$name"
    else
        bad "$name" "exit $rc (want 2), inputs unchanged: $([ "$after" = "$before" ] && echo yes || echo NO)" "$(head -n 2 err.txt)"
    fi
}
tsv=(--task=tsv --data=corpus.tsv --max-len=8) # --max-len back at its default: tsv reads no --max-len (small has 5)
refuse "--data=X --log=X: refused, the corpus kept" "is the file given as --data" "${small[@]}" "${tsv[@]}" --log=corpus.tsv
refuse "--load=X --log=X: refused, the checkpoint kept" "is the file given as --load" --load=model.st --log=model.st
refuse "--data=X --save=X: refused" "is the file given as --data" "${small[@]}" "${tsv[@]}" --save=corpus.tsv
refuse "--load=X --dump-state=X: refused" "is the file given as --load" --load=model.st --dump-state=model.st
refuse "--config=X --log=X: refused" "is the file given as --config" --config=run.cfg --steps=2 --log=run.cfg
refuse "the same file spelled ./sub/../X: refused" "is the file given as --data" "${small[@]}" "${tsv[@]}" \
    --log=./sub/../corpus.tsv
refuse "the same file through a symlink: refused" "is the file given as --load" --load=model.st --log=link.st
refuse "the same file by its absolute path: refused" "is the file given as --load" --load=model.st --log="$dir/model.st"
refuse "--dump-state onto the corpus, spelled DIR/sub/../X: refused" "is the file given as --data" \
    "${small[@]}" "${tsv[@]}" --dump-state="$dir/sub/../corpus.tsv"
rm -f fresh.out
refuse "--log=Y --save=Y (two outputs, one file): refused" "name the same file" "${small[@]}" --log=fresh.out --save=fresh.out
if [ ! -e fresh.out ]; then ok "... and nothing was written to Y"; else bad "two outputs: Y was written"; fi
refuse "--load=X --attention-svg=X: refused" "is the file given as --load" --load=model.st --attention-svg=model.st
refuse "--attention-svg onto the corpus, spelled ./sub/../X: refused" "is the file given as --data" \
    "${small[@]}" "${tsv[@]}" --attention-svg=./sub/../corpus.tsv
refuse "--attention-svg=Y --dump-state=Y: refused" "name the same file" "${small[@]}" --dump-state=fresh.out \
    --attention-svg=fresh.out
if [ ! -e fresh.out ]; then ok "... and nothing was written to Y"; else bad "two outputs: Y was written"; fi
"$train" "${small[@]}" --steps=5 --load=model.st --save=model.st >/dev/null 2>err.txt
if [ $? -eq 0 ]; then ok "--load=X --save=X (continue a run in place) is still allowed"; else bad "--load=X --save=X" "$(cat err.txt)"; fi
"$train" "${small[@]}" --steps=3 --save=model.st >/dev/null 2>&1 # back to the protected file
before="$(sum corpus.tsv) $(sum model.st) $(sum run.cfg)"

# ---------------------------------------------------------------- special files
# A device of our own when we may make one (root): should the refusal ever break, only this
# copy is replaced, never the system's /dev/null. Without root, /dev cannot be written anyway.
device=/dev/null
mknod null-device c 1 3 2>/dev/null && device=$dir/null-device
refuse "--save=<a device>: refused, the device is not replaced" "character device" "${small[@]}" --save="$device"
if [ -c "$device" ]; then ok "the device is still a device"; else bad "$device was replaced by a regular file"; fi
refuse "--log=/dev/full: refused before training" "character device" "${small[@]}" --log=/dev/full
refuse "--save=<a directory>: refused" "is a directory" "${small[@]}" --save=sub
refuse "--log into a missing directory: refused before training" "No such file" "${small[@]}" --log=nowhere/x.csv
mkfifo fifo
refuse "--data=<a FIFO>: refused at once (no hang)" "a FIFO, not a regular file" "${small[@]}" --max-len=8 --task=tsv --data=fifo
refuse "--config=<a FIFO>: refused at once" "a FIFO, not a regular file" --config=fifo
refuse "--load=<a FIFO>: refused at once" "a FIFO, not a regular file" --load=fifo
refuse "--log=<a FIFO>: refused" "is a FIFO" "${small[@]}" --log=fifo
refuse "--attention-svg=<a FIFO>: refused" "is a FIFO" "${small[@]}" --attention-svg=fifo
refuse "--attention-svg=<a directory>: refused" "is a directory" "${small[@]}" --attention-svg=sub
perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => $ARGV[0], Listen => 1)' sock 2>/dev/null
if [ -S sock ]; then
    refuse "--save=<a socket>: refused" "is a socket" "${small[@]}" --save=sock
    refuse "--data=<a socket>: refused at once" "not a regular file" "${small[@]}" --max-len=8 --task=tsv --data=sock
fi
# a folder no file can be created in, even by root: found before the first step, not at the save
unwritable=/proc/self
refuse "--save into a folder where nothing can be created: refused before training" "cannot create a file in" \
    "${small[@]}" --steps=100000 --save=$unwritable/x.st
refuse "--attention-svg into a folder where nothing can be created: refused before training" "cannot create a file in" \
    "${small[@]}" --steps=100000 --attention-svg=$unwritable/x.svg
refuse "--log=-: refused (not a file named -)" "name a file" "${small[@]}" --log=-
refuse "--save=-: refused" "name a file" "${small[@]}" --save=-
if [ ! -e ./- ]; then ok "... and no file named - was made"; else bad "a file named - was made"; fi
refuse "--load=<a directory>: says so" "a directory, not a regular file" --load=sub
if grep -q 9223372036854775807 err.txt; then bad "--load=<a directory> reports a nonsense size"; fi

# ---------------------------------------------------------------- standard output and error
# /dev/stdout with stdout redirected to a file is that file: an output renamed over it, or written
# into it, would replace what the run prints (its summary line). Refused before the first step for
# every output, under any spelling of the file.
stream_refusals=""
for flag in save log dump-state tape-dot attention-svg; do
    for target in /dev/stdout /dev/stderr run.out run.err; do
        stream="standard output"
        case $target in *err) stream="standard error" ;; esac
        rm -f run.out run.err
        timeout 20 "$train" "${small[@]}" --steps=2 --$flag=$target >run.out 2>run.err
        rc=$?
        if ! { [ $rc -eq 2 ] && [ "$(wc -l <run.err)" -eq 1 ] && [ ! -s run.out ] &&
            grep -q "^error: --$flag=$target is the file $stream goes to" run.err; }; then
            stream_refusals="$stream_refusals --$flag=$target (exit $rc: $(head -c 80 run.err | head -n 1));"
        fi
    done
done
if [ -z "$stream_refusals" ]; then
    ok "every output (--save, --log, --dump-state, --tape-dot, --attention-svg) onto the file of stdout or stderr: refused in one line, exit 2"
else
    bad "outputs onto the file of standard output or error" "$stream_refusals"
fi
"$train" "${small[@]}" --steps=2 --attention-svg=/dev/stdout >run.out 2>run.err
if [ ! -s run.out ] && ! grep -q '<svg' run.out; then ok "... and the file stdout goes to is not replaced by the figure"; else
    bad "--attention-svg=/dev/stdout replaced standard output's file" "$(head -c 80 run.out)"; fi

# ---------------------------------------------------------------- failed writes
"$train" "${small[@]}" --steps=3 >/dev/full 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "standard output" err.txt; then ok "standard output on a full disk (/dev/full): exit 2"; else
    bad "stdout to /dev/full" "exit $rc" "$(cat err.txt)"; fi
# standard output closed early (| head -n 1): the run stops with exit 2, after saving
set -o pipefail
"$train" --layers=1 --dmodel=32 --heads=2 --batch=8 --max-len=5 --val-size=64 --eval-examples=32 --steps=100000 \
    --log-every=1 --save=pipe.st 2>pipe.err | head -n 1 >/dev/null
rc=$?
set +o pipefail
if [ $rc -eq 2 ] && grep -q "standard output: a write failed" pipe.err && grep -q "saved pipe.st" pipe.err &&
    [ -n "$(ckpt_step pipe.st)" ]; then
    ok "standard output closed early (| head): exit 2, the checkpoint saved"
else
    bad "a closed pipe on standard output" "exit $rc" "$(cat pipe.err)"
fi
# a log that outgrows the disk: ulimit -f stands in for a full disk (the checkpoint, 175 KB, still fits)
(
    ulimit -f 200
    trap '' XFSZ
    "$train" "${small[@]}" --steps=5000 --log-every=1 --log=full.csv --save=full.st >/dev/null 2>full.err
)
rc=$?
step=$(sed -n 's/.*stopped after step \([0-9]*\), saved full.st$/\1/p' full.err)
if [ $rc -eq 2 ] && grep -q "full.csv" full.err && [ -n "$step" ] && [ "$step" -lt 5000 ] && [ "$(ckpt_step full.st)" = "$step" ]; then
    ok "a log on a full disk: exit 2 at step $step, the checkpoint saved first"
else
    bad "a log on a full disk" "exit $rc, step '$step'" "$(cat full.err)"
fi
if "$train" --load=full.st --stop-at=$((${step:-0} + 2)) --quiet >/dev/null 2>load.err; then
    ok "... and that checkpoint resumes"
else
    bad "the checkpoint saved after a failed write resumes" "$(cat load.err)"
fi

# ---------------------------------------------------------------- signals
# wait_rows CSV N: until the run has logged N rows (it is training, not starting)
# finish PID: wait for it, but kill it after 30 s (a run that ignores a signal must not hang the suite)
finish() {
    local pid=$1 i
    for i in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
}
wait_rows() { for _ in $(seq 1 400); do [ "$( { wc -l <"$1"; } 2>/dev/null || echo 0)" -gt "$2" ] && return; sleep 0.05; done; }
long=("${small[@]}" --steps=1000000 --log-every=1 --eval-every=0 --dropout=0.1)
"$train" "${long[@]}" --save=int.st --log=int.csv >/dev/null 2>int.err &
pid=$!
wait_rows int.csv 20
kill -INT $pid
finish $pid
rc=$?
n=$(sed -n 's/^stopped by SIGINT after step \([0-9]*\): saved .*int.st.*/\1/p' int.err)
if [ $rc -eq 130 ] && [ -n "$n" ]; then ok "SIGINT: exit 130, saved at step $n, one line says so"; else
    bad "SIGINT saves and says so" "exit $rc" "$(cat int.err)"; fi
# resumed from where the signal stopped it = a run that was never interrupted
n=${n:-1}
"$train" --load=int.st --stop-at=$((n + 15)) --save=int.st --quiet >/dev/null 2>&1
"$train" "${long[@]}" --stop-at=$((n + 15)) --save=straight.st >/dev/null 2>&1
if cmp -s int.st straight.st; then ok "... resumed, it continues exactly (byte-identical checkpoint $((n + 15)) steps in)"; else
    bad "a run stopped by SIGINT resumes exactly" "$(cmp int.st straight.st 2>&1)"; fi
"$train" "${long[@]}" --log=term.csv >/dev/null 2>term.err &
pid=$!
wait_rows term.csv 5
kill -TERM $pid
finish $pid
rc=$?
if [ $rc -eq 143 ] && grep -q "^stopped by SIGTERM after step [0-9]*: nothing saved" term.err; then
    ok "SIGTERM without --save: exit 143, says nothing was saved"
else
    bad "SIGTERM without --save" "exit $rc" "$(cat term.err)"
fi
# SIGHUP (a closed terminal or ssh session) is a stop like SIGTERM: saved, said, exit 129
"$train" "${long[@]}" --save=hup.st --log=hup.csv >/dev/null 2>hup.err &
pid=$!
wait_rows hup.csv 5
kill -HUP $pid
finish $pid
rc=$?
n=$(sed -n 's/^stopped by SIGHUP after step \([0-9]*\): saved .*hup.st.*/\1/p' hup.err)
n=${n:-1}
"$train" --load=hup.st --stop-at=$((n + 5)) --save=hup.st --quiet >/dev/null 2>&1
"$train" "${long[@]}" --stop-at=$((n + 5)) --save=straight.st >/dev/null 2>&1
if [ $rc -eq 129 ] && grep -q "^stopped by SIGHUP after step $n: saved" hup.err && cmp -s hup.st straight.st; then
    ok "SIGHUP: exit 129, saved at step $n, one line says so; resumed, it continues exactly"
else
    bad "SIGHUP saves and says so, as SIGTERM" "exit $rc" "$(cat hup.err)" "$(cmp hup.st straight.st 2>&1)"
fi
# a signal during the final evaluations (a test set of 10^5 examples: seconds) stops them at the
# next batch: the checkpoint was saved before them, exit 143 at once (within 10 s; the whole test
# set takes half a minute at -O3 and minutes under a sanitizer), no summary line
"$train" "${small[@]}" --max-len=8 --steps=2 --log-every=1 --test-size=100000 --save=evalstop.st --log=evalstop.csv \
    >evalstop.out 2>evalstop.err &
pid=$!
wait_rows evalstop.csv 3 # the comment, the header and the rows of steps 1 and 2
sleep 0.5
start=$(date +%s%N)
kill -TERM $pid
finish $pid
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $rc -eq 143 ] && grep -q "^stopped by SIGTERM after step 2: saved .*evalstop.st" evalstop.err && [ -s evalstop.st ] &&
    ! grep -q '^summary:' evalstop.out && [ $ms -lt 10000 ]; then
    ok "SIGTERM during the final test-set evaluation: stopped in $ms ms, exit 143, the checkpoint saved before it"
else
    bad "a signal during the final evaluations stops them" "exit $rc after $ms ms" "$(tail -n 2 evalstop.err)" \
        "$(ls -la evalstop.st 2>&1)"
fi
# a signal while a step's evaluation runs (here every step evaluates 4000 examples, most of a
# step's time) lets it finish: the row is whole, and the resumed run's log equals a straight
# run's (the columns but tokens/s and time)
evals=("${small[@]}" --max-len=8 --steps=8 --eval-every=1 --val-size=4000 --eval-examples=4000 --log-every=1)
"$train" "${evals[@]}" --save=evals.st --log=evals.csv >/dev/null 2>evals.err &
pid=$!
wait_rows evals.csv 3
kill -TERM $pid
finish $pid
rc=$?
"$train" --load=evals.st --save=evals.st --log=evals.csv --quiet >/dev/null 2>&1
"$train" "${evals[@]}" --log=evals_straight.csv >/dev/null 2>&1
strip() { grep -v '^#' "$1" | awk -F, '{ $5 = ""; $6 = ""; print }'; }
if [ $rc -eq 143 ] && [ "$(strip evals.csv)" = "$(strip evals_straight.csv)" ] && [ "$(strip evals.csv | wc -l)" -eq 9 ]; then
    ok "SIGTERM during a step's evaluation: the row is whole; resumed, the log equals a straight run's"
else
    bad "a signal during a step's evaluation" "exit $rc" "$(diff <(strip evals.csv) <(strip evals_straight.csv) | head -n 4)"
fi
# under nohup (SIGHUP ignored when the program starts) it stays ignored: the run goes on
(trap '' HUP; exec "$train" "${small[@]}" --steps=300 --log-every=1 --eval-every=0 --log=nohup.csv >/dev/null 2>nohup.err) &
pid=$!
wait_rows nohup.csv 5
kill -HUP $pid
finish $pid
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -vc '^#' nohup.csv)" -eq 301 ] && [ ! -s nohup.err ]; then
    ok "SIGHUP ignored by nohup stays ignored: the run finishes (exit 0, 300 rows)"
else
    bad "SIGHUP under nohup is ignored" "exit $rc, $(grep -vc '^#' nohup.csv) lines" "$(cat nohup.err)"
fi
# the terminal itself closed: SIGHUP, then every write to it fails; the stop is the signal's
# (exit 129, saved), not a failed write's (exit 2)
# script(1) (util-linux) gives the run a terminal of its own, with ./train as the session leader;
# killing script closes the terminal's other end, and the kernel sends SIGHUP to the run
if command -v script >/dev/null 2>&1; then
    rm -f tty.st tty.csv tty.err
    cmd="exec $(printf '%q ' "$train" "${long[@]}") --save=tty.st --log=tty.csv 2>tty.err"
    script -qfc "${cmd/--quiet/}" /dev/null >/dev/null 2>&1 &
    spid=$!
    wait_rows tty.csv 5
    kill -KILL $spid
    wait $spid 2>/dev/null
    for _ in $(seq 1 600); do grep -q '^stopped by' tty.err 2>/dev/null && break; sleep 0.05; done
    sleep 0.2
    s=$(ckpt_step tty.st)
    if grep -q '^stopped by SIGHUP after step [0-9]*: saved tty.st' tty.err && [ -n "$s" ] && [ "$s" -gt 0 ] &&
        "$train" --load=tty.st --stop-at=$((s + 1)) --quiet >/dev/null 2>&1; then
        ok "a closed terminal (a pty of script(1)): stopped as by SIGHUP, saved at step $s, and the checkpoint resumes"
    else
        bad "a closed terminal stops as SIGHUP, saved" "$(cat tty.err)" "checkpoint step: $s"
    fi
else
    echo "skip  a closed terminal (pty): no script(1)"
fi
# a second signal stops at once; the checkpoint of the last finished save survives
big=(--layers=4 --dmodel=256 --heads=4 --batch=64 --max-len=12 --steps=1000000 --log-every=1 --eval-every=0 --quiet)
"$train" "${big[@]}" --save=two.st --save-every=2 --log=two.csv >/dev/null 2>two.err &
pid=$!
wait_rows two.csv 4
kill -INT $pid
# two signals sent back to back may merge into one: send the second once the first is seen
for _ in $(seq 1 400); do grep -q '^signal received' two.err && break; sleep 0.01; done
kill -INT $pid
finish $pid
rc=$?
s2=$(ckpt_step two.st)
if [ $rc -eq 130 ] && grep -q "second signal: stopped at once" two.err && [ -n "$s2" ] &&
    "$train" --load=two.st --stop-at=$((s2 + 1)) --quiet >/dev/null 2>&1; then
    ok "a second signal stops at once (exit 130); the last checkpoint is whole"
else
    bad "two signals" "exit $rc" "$(cat two.err)"
fi

# ---------------------------------------------------------------- resuming into the same files
# the log of a paused run is continued by its resumption, not replaced: the rows before the pause
# stay, and the whole log equals an uninterrupted run's (but for the timing columns)
part=("${small[@]}" --steps=20 --log-every=2 --dropout=0.1)
"$train" "${part[@]}" --stop-at=10 --save=cont.st --log=cont.csv >/dev/null 2>&1
"$train" --load=cont.st --log=cont.csv --save=cont.st --quiet >/dev/null 2>cont.err
"$train" "${part[@]}" --log=whole.csv >/dev/null 2>&1
# the rows and header but the timings; the comment line (the command that started the log) kept as it was
untimed() { grep -v '^#' "$1" | cut -d, -f1-4,7-; }
if [ "$(untimed cont.csv)" = "$(untimed whole.csv)" ] && [ "$(wc -l <cont.csv)" -eq 13 ] &&
    [ "$(grep -c '^# ./train .*--stop-at=10' cont.csv)" -eq 1 ]; then
    ok "--load=X --log=L of the paused run: L continued (rows of steps 1-10 kept), equal to an uninterrupted run's log"
else
    bad "resuming with the same --log" "$(wc -l <cont.csv) lines" "$(diff <(untimed cont.csv) <(untimed whole.csv) | head -n 3)"
fi
"$train" "${part[@]}" --stop-at=6 --save=cont2.st >/dev/null 2>&1
printf 'my notes\n' >notes.txt
refuse "--load=X --log=<a file that is not its log>: refused, the file kept" "not the log of the run" --load=cont2.st --log=notes.txt
if [ "$(cat notes.txt)" = "my notes" ]; then ok "... notes.txt unchanged"; else bad "notes.txt was changed"; fi
# an output that is a symbolic link is written through it: the link stays, its target is replaced
"$train" "${small[@]}" --steps=4 --stop-at=2 --save=target.st >/dev/null 2>&1
ln -s target.st alias.st
"$train" --load=target.st --save=alias.st --quiet >/dev/null 2>alias.err
if [ -L alias.st ] && [ "$(ckpt_step target.st)" = 4 ]; then
    ok "--save=<a symlink>: the link kept, the checkpoint it points to updated"
else
    bad "--save through a symlink" "link: $([ -L alias.st ] && echo kept || echo REPLACED), target step $(ckpt_step target.st)" \
        "$(cat alias.err)"
fi

# a figure is drawn at the end, whole: an existing file survives a run that stops early
printf 'my figure\n' >figure.svg
"$train" "${small[@]}" --steps=5 --inject=nan:2:h.0.attn.wq --attention-svg=figure.svg >/dev/null 2>fig.err
rc=$?
kept=$(cat figure.svg)
"$train" "${small[@]}" --steps=2 --attention-svg=figure.svg >/dev/null 2>>fig.err
if [ $rc -eq 3 ] && [ "$kept" = "my figure" ] && grep -q '^<svg ' figure.svg && grep -q '</svg>' figure.svg &&
    [ -z "$(ls figure.svg.tmp.* 2>/dev/null)" ]; then
    ok "--attention-svg=<an existing file>: kept by a run stopped at a NaN (exit 3), replaced whole by one that ends"
else
    bad "--attention-svg over an existing file" "exit $rc, kept: $kept" "$(cat fig.err)"
fi

# ---------------------------------------------------------------- leftovers of killed saves
sleep 0.01 &
dead=$!
wait $dead
printf 'partial' >"keep.st.tmp.$dead"
printf 'partial' >"keep.st.tmp.$$"       # this shell is alive: its file may still be written
printf 'mine' >"keep.st.tmp.notapid"
printf 'partial' >"keep.svg.tmp.$dead"
"$train" "${small[@]}" --steps=2 --save=keep.st --attention-svg=keep.svg >/dev/null 2>stale.err
if [ ! -e "keep.st.tmp.$dead" ] && grep -q "removed .*keep.st.tmp.$dead" stale.err && [ -e "keep.st.tmp.$$" ] &&
    [ -e keep.st.tmp.notapid ] && [ ! -e "keep.svg.tmp.$dead" ]; then
    ok "a stale FILE.tmp.<pid> of a dead process (--save, --attention-svg) is removed (and said); a live one's and other files are kept"
else
    bad "stale temporaries" "$(ls keep.st.tmp.* 2>&1 | tr '\n' ' ')" "$(cat stale.err)"
fi

# ---------------------------------------------------------------- text files from other systems
printf '\357\273\277layers = 1\r\ndmodel = 32\r\nheads = 2\r\n' >bom.cfg
printf 'layers = 1\rdmodel = 32\rheads = 2\r' >mac.cfg
printf 'layers = 1\ndmodel = 32\nheads = 2\n' >unix.cfg
for c in unix bom mac; do
    "$train" --config=$c.cfg --batch=8 --max-len=5 --val-size=64 --eval-examples=32 --steps=5 --quiet >$c.out 2>&1
done
a=$(sed 's/ time_s=.*//' unix.out)
if [ -n "$a" ] && [ "$a" = "$(sed 's/ time_s=.*//' bom.out)" ] && [ "$a" = "$(sed 's/ time_s=.*//' mac.out)" ]; then
    ok "config files with a byte-order mark, CRLF or CR lines read like plain ones"
else
    bad "config with a BOM / CR" "$a" "$(cat bom.out)" "$(cat mac.out)"
fi
{ cat unix.cfg; printf '\357\273\277dmodel = 32\n'; } >joined.cfg
refuse "a byte-order mark inside a config (two files joined): named in the error" "byte-order mark" --config=joined.cfg
{ printf '\357\273\277'; tr '\n' '\r' <corpus.tsv; } >mac.tsv
"$train" "${small[@]}" --max-len=8 --task=tsv --data=corpus.tsv --steps=5 >plain.out 2>&1
"$train" "${small[@]}" --max-len=8 --task=tsv --data=mac.tsv --steps=5 >mac-tsv.out 2>&1
a=$(sed 's/ time_s=.*//' plain.out)
if [ -n "$a" ] && [ "$a" = "$(sed 's/ time_s=.*//' mac-tsv.out)" ]; then
    ok "a TSV corpus with a byte-order mark and CR lines trains like the plain one"
else
    bad "TSV with a BOM and CR lines" "$a" "$(cat mac-tsv.out)"
fi

# ---------------------------------------------------------------- resuming a TSV run elsewhere
"$train" "${small[@]}" "${tsv[@]}" --steps=30 --save=tsv-straight.st >/dev/null 2>&1
"$train" "${small[@]}" "${tsv[@]}" --steps=30 --stop-at=15 --save=tsv-half.st >/dev/null 2>&1
(cd sub && "$train" --load=../tsv-half.st --save=../tsv-resumed.st --quiet >/dev/null 2>../away.err)
rc=$?
if [ $rc -eq 2 ] && grep -q "give --data=PATH" away.err; then ok "TSV resume from another directory: the missing corpus is named"; else
    bad "TSV resume elsewhere without --data" "exit $rc" "$(cat away.err)"; fi
(cd sub && "$train" --load=../tsv-half.st --data="$dir/corpus.tsv" --save=../tsv-resumed.st --quiet >/dev/null 2>../away.err)
if same_tensors tsv-resumed.st tsv-straight.st; then
    ok "... with an absolute --data it resumes exactly (the same tensors, bit for bit)"
else
    bad "TSV resume with an absolute --data" "$(cat away.err)"
fi

# ---------------------------------------------------------------- probe and report
"$bin/probe" --pairs=1 >/dev/null 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "from 2 to" err.txt; then ok "./probe --pairs=1 is refused (a variance needs 2 draws)"; else
    bad "probe --pairs=1" "exit $rc" "$(cat err.txt)"; fi
"$bin/probe" --pairs=200 --samples=20 --draws=3 >/dev/null 2>err.txt
if [ "$(grep -c '^probe: part.* done' err.txt)" -ge 15 ]; then ok "./probe reports progress on stderr"; else
    bad "probe progress" "$(head -n 3 err.txt)"; fi

# ---------------------------------------------------------------- the ablation script
abl=$root/scripts/ablation.sh
export TRAIN=$train REPORT=$bin/report
mkdir elsewhere
printf 'keep' >abl-lost
(cd elsewhere && "$abl" --quick --out '../abl-lost x' -- --steps=20 --eval-every=10 >../abl.out 2>&1)
rc=$?
n_abl=$(ls "abl-lost x/runs"/*.out 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ -f "abl-lost x/summary.md" ] && [ "$(cat abl-lost)" = keep ] && [ "$n_abl" -ge 8 ] &&
    [ "$n_abl" -eq "$(($(wc -l <"abl-lost x/jobs.tsv") - 1))" ]; then
    ok "ablation.sh --out 'abl-lost x' (a space, a relative path from another directory): every planned run there ($n_abl), the file abl-lost untouched"
else
    bad "ablation.sh --out with a space" "exit $rc" "$(tail -n 3 abl.out)"
fi
(cd elsewhere && "$abl" --quick --out=rel --print-jobs >../jobs.txt 2>/dev/null)
lines=$(wc -l <jobs.txt)
first=$(head -n 1 jobs.txt)
(cd / && bash -c "$first")
if [ "$lines" -eq 4 ] && ls elsewhere/rel/runs/*.out >/dev/null 2>&1; then
    ok "ablation.sh --out=rel lands under the caller's directory; a --print-jobs line runs from /"
else
    bad "ablation.sh --out=VALUE and --print-jobs" "$lines lines" "$(head -n 2 jobs.txt)"
fi
"$abl" --quick --standard --out q >abl.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "are tiers: give one" abl.out && [ ! -e q ]; then
    ok "ablation.sh --quick --standard: refused, not one silently ignored"
else
    bad "ablation.sh --quick --standard" "exit $rc" "$(cat abl.out)"
fi
for args in "--bogus" "--out" "--jobs=0" "--out a --out b" "-- --dk=8" "-- --task copy" "-- --lr 1e-3" "--shard 3/2" \
    "--phase 3" "--standard --phase 1" "--scales 1"; do
    # shellcheck disable=SC2086
    "$abl" --print-jobs $args >abl.out 2>&1
    rc=$?
    [ $rc -eq 2 ] || bad "ablation.sh $args: exit $rc, want 2" "$(cat abl.out)"
done
[ $rc -eq 2 ] && ok "ablation.sh refuses unknown, valueless, bad, repeated and grid-conflicting options"
# a mistyped option is named as unknown (not as one that needs a value), with the ones there are
"$abl" --quik >abl.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "^error: unknown option --quik (the options: --quick " abl.out; then
    ok "ablation.sh --quik: an unknown option, the options listed"
else
    bad "ablation.sh --quik" "exit $rc" "$(cat abl.out)"
fi

# an --out where no folder can be made: one line, exit 2 (was mkdir's own message and exit 1)
"$abl" --quick --out /proc/self/study >abl.out 2>&1
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <abl.out)" -eq 1 ] && grep -q "^error: --out=/proc/self/study: cannot make a folder there, or write in it$" abl.out; then
    ok "ablation.sh --out /proc/self/study: one line, exit 2"
else
    bad "ablation.sh --out where no folder can be made" "exit $rc" "$(cat abl.out)"
fi

# ---------------------------------------------------------------- report on a run cut short
mkdir -p cut/runs
id=lr_sort_adamw_s-1_dk16_lr0.001_seed1
run=cut/runs/$id
"$train" --config="$root/configs/ablation.cfg" --task=sort --scale=1 --dk=16 --seed=1 --steps=20 --eval-every=10 \
    --test-size=50 --log="$run.csv" >"$run.full" 2>&1
printf 'id\tstage\ttask\toptim\tscale\tdk\tlr\tseed\tvariant\tcommand\n%s\tlr\tsort\tadamw\t1\t16\t0.001\t1\t-\t./train\n' "$id" \
    >cut/jobs.tsv
head -c -30 "$run.full" >"$run.out"
"$bin/report" cut >report.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "$id.out" report.out; then ok "./report refuses a run whose summary line is cut short, naming it"; else
    bad "report on a truncated summary" "exit $rc" "$(cat report.out)"; fi
cp "$run.full" "$run.out"
head -c -30 "$run.csv" >"$run.cut" && mv "$run.cut" "$run.csv"
"$bin/report" cut >report.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "$id.csv" report.out; then ok "./report refuses a run CSV cut short, naming it"; else
    bad "report on a truncated CSV" "exit $rc" "$(cat report.out)"; fi
rm -f "$run.csv"
mkfifo "$run.csv"
timeout 10 "$bin/report" cut >report.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "FIFO" report.out; then ok "./report on a FIFO named like a run's CSV: refused at once (no hang)"; else
    bad "report on a FIFO" "exit $rc (124: it hung)" "$(cat report.out)"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
