#!/usr/bin/env python3
"""torch_bench.py - the PyTorch side of `make bench`'s comparison, measured on this machine.

An optional tool: it is not part of the build or of the test suite, and nothing in the C code
needs it. It times, in PyTorch, the training step that lab/bench/bench.c times in our code, at
the same four configs, and writes a CSV that `./bench` reads (lab/bench/bench_torch.c) to print
ours / PyTorch's best per config.

    /usr/bin/python3 scripts/torch_bench.py [--out=build/torch_bench.csv] [--configs=S,M,L,XL]
                                            [--steps=20] [--rounds=2] [--settings=NAME,...]
    make torch-bench                        (the same, with the defaults)

Configs (B, T, C, L, H, V; dk = C/H), as in lab/bench/bench.c:
    S = 32,32,64,2,4,32   M = 32,64,128,4,4,64   L = 16,128,256,4,8,256   XL = 8,256,512,6,8,256

The model and the step are those of bench.c (model/gpt.c, model/train_step.c):
  - x = wte[tok] + wpe[pos] (learned position table); per layer, pre-LayerNorm (eps 1e-5):
    x += Wo(attn(LN1(x))) + bo, x += W2 GELU_tanh(W1 LN2(x) + b1) + b2 (hidden 4C); attention
    with biases on q, k, v, H heads of dk = C/H, scores q.k / sqrt(dk), causal mask, softmax,
    P.V; then LNf and an untied head C -> V without bias. No dropout (bench.c's model has
    dropout 0 and attention dropout 0). float32 throughout.
  - Xavier-uniform weights, N(0, 0.02^2) embeddings, zero biases, unit gains; random tokens
    and targets below V; mean cross-entropy over all B*T positions.
  - AdamW (beta 0.9, 0.98; eps 1e-8 outside the square root; weight decay 0.01 on the 2-D
    tensors only, decoupled), the learning rate of our schedule (warm-up 10 steps to 1e-3,
    cosine to 1e-4 over 1000) set every step, the global gradient norm clipped to 1.0.
  - One timed step = zero_grad + forward + loss + backward + clip + AdamW step; median of
    --steps steps after 3 warm-up steps, each setting in a fresh process; the best median of
    --rounds rounds (the settings alternate within a round), as bench.c does for ours. After
    the first round, a setting more than 1.5x slower than its config's best is not run again
    (it cannot become the anchor; this keeps the slow default out of the later rounds).
  The FLOPs per step are therefore the same as ours (bench.c: 6 P B T + 12 L B T^2 H dk); the
  comparison divides times, so the formula cancels out.

Differences that remain (each, if anything, in PyTorch's favour or neutral):
  - q, k and v are one fused nn.Linear(C, 3C) (one matmul instead of our three; same FLOPs,
    the idiom of PyTorch GPT code), and nn.Linear computes x W^T with W stored [out, in].
  - zero_grad(set_to_none=True): PyTorch allocates gradients afresh instead of zeroing them
    (we memset our gradient buffer).
  - clip_grad_norm_ always rescales (by min(1, clip/norm)); we skip the rescale when the norm
    is below the clip, and we run one extra pass that checks the update for non-finite values.
  - AdamW is PyTorch 1.13's multi-tensor implementation (foreach=True; the default, a Python
    loop over the tensors, was as fast or slower in a trial at S and M); 1.13 has no fused
    AdamW. There is no torch.compile in 1.13, and
    F.scaled_dot_product_attention does not exist yet: attention is the plain matmul /
    masked_fill / softmax / matmul chain, as in any 1.13 GPT.
  - oneDNN (MKL-DNN) is in the build but float32 matmuls on CPU go to the BLAS; the BLAS is
    what this script chooses (below).
  - Dropout: none on either side, so no RNG difference.

The BLAS, set up fairly. Debian's python3-torch is built with BLAS_INFO=generic: it calls
whatever libblas.so.3 the alternatives system points to, and the default is the reference
(netlib) BLAS, many times slower. With libopenblas0-pthread and/or libopenblas0-openmp
installed, this script loads each variant per process (LD_LIBRARY_PATH to its folder, which
is what the alternative would point to) without changing the system's choice. OpenBLAS 0.3.21
does not know recent Xeons and falls back to its Prescott (SSE3) kernels; the script therefore
first measures a float32 matmul with each kernel the CPU can run (OPENBLAS_CORETYPE=auto,
SapphireRapids, Cooperlake, SkylakeX, Haswell, Zen as the CPU flags allow) and keeps the
fastest per variant, then tries, per config:
    default                     `import torch` as a user would: no environment, torch's threads
    <blas>/t1                   torch.set_num_threads(1), the BLAS on 1 thread
    <blas>/tN[/active|passive]  N threads (the cores this process may use, as ./bench) for torch and for the
                                BLAS (OMP_WAIT_POLICY unset, active, passive)
    openblas-pthread/t1-b2      torch on 1 thread, OpenBLAS's own pool on 2
(and MKL_NUM_THREADS for a torch with MKL). The anchor `./bench` divides by is the best of
these per config, never the default. The header of the CSV names the torch version, each
BLAS library with the kernel it reported (openblas_get_corename) in the measuring process,
the CPU, the date and the command.

Output: a CSV (config,setting,threads,ms_per_step) after '#' comment lines; the first line
is a marker, and the script refuses (exit 2) to overwrite a file that does not start with it.
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import shlex
import subprocess
import tempfile
import sys

MARKER = "# torch_bench.py output: PyTorch training-step times for lab/bench/bench.c"
COLUMNS = "config,setting,threads,ms_per_step"

CONFIGS = {  # name: (B, T, C, L, H, V), as lab/bench/bench.c
    "S": (32, 32, 64, 2, 4, 32),
    "M": (32, 64, 128, 4, 4, 64),
    "L": (16, 128, 256, 4, 8, 256),
    "XL": (8, 256, 512, 6, 8, 256),
}
WARMUP = 3
PRUNE = 1.5  # after round 1, a setting slower than this times its config's best is not run again

OPENBLAS_DIRS = {  # Debian's OpenBLAS variants, each a folder with its own libblas.so.3
    "openblas-pthread": "/usr/lib/x86_64-linux-gnu/openblas-pthread",
    "openblas-openmp": "/usr/lib/x86_64-linux-gnu/openblas-openmp",
}

# OPENBLAS_CORETYPE candidates and the CPU flags (/proc/cpuinfo) each kernel needs.
CORETYPES = [
    ("SapphireRapids", {"avx512f", "avx512bw", "avx512vl", "avx512_bf16", "amx_tile"}),
    ("Cooperlake", {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"}),
    ("SkylakeX", {"avx512f", "avx512bw", "avx512vl"}),
    ("Haswell", {"avx2", "fma"}),
    ("Zen", {"avx2", "fma", "amd"}),
]


def fail(msg):
    print("torch_bench.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------------ the child: one measurement


def blas_report():
    """Which BLAS libraries this process has loaded, and what OpenBLAS says of itself."""
    libs = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and ("blas" in parts[-1] or "mkl" in parts[-1]) and parts[-1] not in libs:
                libs.append(parts[-1])
    info = {"libs": libs, "core": None, "config": None, "openblas_threads": None}
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            core = lib.openblas_get_corename
            conf = lib.openblas_get_config
        except (OSError, AttributeError):
            continue
        core.restype = ctypes.c_char_p
        conf.restype = ctypes.c_char_p
        info["core"] = core().decode()
        info["config"] = conf().decode()
        try:
            info["openblas_threads"] = lib.openblas_get_num_threads()
        except AttributeError:
            pass
        break
    return info


def build_model(torch, B, T, C, L, H, V):
    nn = torch.nn
    F = torch.nn.functional
    dk = C // H

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(C, eps=1e-5)
            self.qkv = nn.Linear(C, 3 * C)
            self.proj = nn.Linear(C, C)
            self.ln2 = nn.LayerNorm(C, eps=1e-5)
            self.fc1 = nn.Linear(C, 4 * C)
            self.fc2 = nn.Linear(4 * C, C)
            self.register_buffer("causal", torch.ones(T, T, dtype=torch.bool).tril().logical_not(), persistent=False)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q = q.view(b, t, H, dk).transpose(1, 2)
            k = k.view(b, t, H, dk).transpose(1, 2)
            v = v.view(b, t, H, dk).transpose(1, 2)
            s = (q @ k.transpose(-2, -1)) * (1.0 / dk**0.5)
            p = F.softmax(s.masked_fill(self.causal[:t, :t], float("-inf")), dim=-1)
            o = (p @ v).transpose(1, 2).contiguous().view(b, t, C)
            x = x + self.proj(o)
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, C)
            self.wpe = nn.Embedding(T, C)
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.lnf = nn.LayerNorm(C, eps=1e-5)
            self.head = nn.Linear(C, V, bias=False)
            self.register_buffer("pos", torch.arange(T), persistent=False)

        def forward(self, tok):
            x = self.wte(tok) + self.wpe(self.pos[: tok.shape[1]])
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.lnf(x))

    m = Gpt()
    with torch.no_grad():  # our initialisation (model/gpt.c), q, k, v each Xavier over C x C
        for name, p in m.named_parameters():
            if name.startswith(("wte", "wpe")):
                nn.init.normal_(p, 0.0, 0.02)
            elif name.endswith("qkv.weight"):
                for i in range(3):
                    nn.init.xavier_uniform_(p[i * C : (i + 1) * C])
            elif p.dim() == 2:
                nn.init.xavier_uniform_(p)
            elif name.endswith("bias") or ".ln" in name or name.startswith("lnf"):
                if name.endswith("weight"):
                    nn.init.ones_(p)
                else:
                    nn.init.zeros_(p)
    return m


def schedule_lr(step, lr=1e-3, min_lr=1e-4, warmup=10, steps=1000):
    """model/optim.c's optim_lr: linear warm-up, then cosine down to min_lr."""
    import math

    if step < warmup:
        return lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup + 1) / (steps - warmup))
    return min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * progress))


def child(args):
    import time

    import torch

    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    torch.manual_seed(1)
    B, T, C, L, H, V = CONFIGS[args.child]
    model = build_model(torch, B, T, C, L, H, V)
    model.train()
    params = list(model.parameters())
    decay = [p for p in params if p.dim() == 2]
    no_decay = [p for p in params if p.dim() != 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=1e-3, betas=(0.9, 0.98), eps=1e-8, foreach=not args.no_foreach,
    )
    g = torch.Generator().manual_seed(3)
    tokens = torch.randint(0, V, (B, T), generator=g)
    targets = torch.randint(0, V, (B * T,), generator=g)
    F = torch.nn.functional
    times = []
    for s in range(WARMUP + args.steps):
        t0 = time.perf_counter()
        lr = schedule_lr(s)
        for group in opt.param_groups:
            group["lr"] = lr
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(tokens).view(B * T, V), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        if s >= WARMUP:
            times.append(1e3 * (time.perf_counter() - t0))
    times.sort()
    out = {
        "median_ms": times[len(times) // 2],  # bench.c's median: the upper middle
        "min_ms": times[0],
        "torch_threads": torch.get_num_threads(),
        "loss": float(loss),
        "blas": blas_report(),
    }
    print(json.dumps(out))


def probe(args):
    """A float32 matmul on one thread: the GFLOP/s of the kernel OpenBLAS was given."""
    import time

    import torch

    torch.set_num_threads(1)
    n = 512
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(10):
            a @ b
        best = min(best, (time.perf_counter() - t0) / 10)
    info = {"gflops": 2 * n**3 / best / 1e9, "version": torch.__version__, "blas": blas_report(),
            "mkl": bool(torch.backends.mkl.is_available())}
    print(json.dumps(info))


# ------------------------------------------------------------------ the parent


def cpu_info():
    model, flags = platform.processor() or "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                key = key.strip()
                if key == "model name":
                    model = val.strip()
                elif key == "flags" and not flags:
                    flags = set(val.split())
                elif key == "vendor_id" and "AMD" in val:
                    flags.add("amd")
    except OSError:
        pass
    return model, flags, os.cpu_count() or 1


def run_child(argv, env, timeout):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)] + argv, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(last)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise RuntimeError("the measuring process printed no result") from None


def variant_env(base, variant, coretype):
    env = dict(base)
    if variant in OPENBLAS_DIRS:
        env["LD_LIBRARY_PATH"] = OPENBLAS_DIRS[variant] + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


def check_out(path):
    if os.path.isdir(path):
        fail(f"{path} is a folder")
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                first = f.readline().rstrip("\r\n")
        except OSError as e:
            fail(f"cannot read {path}: {e.strerror}")
        if first != MARKER:
            fail(f"{path} exists and is not an output of torch_bench.py: not overwritten")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        os.makedirs(d, exist_ok=True)


def main():
    ap = argparse.ArgumentParser(description="PyTorch's training-step times at lab/bench/bench.c's configs")
    ap.add_argument("--out", default="build/torch_bench.csv")
    ap.add_argument("--configs", default="S,M,L,XL")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--settings", default="", help="only these settings (comma-separated names)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--torch-threads", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-foreach", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe:
        return probe(args)
    if args.child:
        return child(args)

    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            fail(f"unknown config '{c}' (S, M, L, XL)")
    if not 1 <= args.steps <= 100000 or not 1 <= args.rounds <= 100:
        fail("--steps must be in 1..100000 and --rounds in 1..100")
    check_out(args.out)
    try:
        import torch  # noqa: F401  (only to fail early with a clear message)
    except ImportError:
        fail(f"{sys.executable} has no torch: apt-get install python3-torch, then run with /usr/bin/python3")

    cpu, flags, ncpu = cpu_info()
    # as many threads as ./bench gives ours (every core this process may use)
    nthreads = max(1, len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else max(1, ncpu)
    base = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "MKL_NUM_THREADS",
              "GOMP_SPINCOUNT", "OPENBLAS_VERBOSE"):
        base.pop(k, None)  # each setting says exactly what it sets (the default setting keeps the user's env)

    # 1. the BLAS variants and the fastest kernel of each
    variants = [v for v, d in OPENBLAS_DIRS.items() if os.path.exists(os.path.join(d, "libblas.so.3"))]
    default_info = run_child(["--probe"], dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"), 300)
    mkl = default_info["mkl"]
    if not variants:
        variants = ["system"]
    print(f"torch {default_info['version']}; default BLAS: {', '.join(default_info['blas']['libs']) or '?'}"
          f" (core {default_info['blas']['core'] or 'n/a'}, {default_info['gflops']:.1f} GFLOP/s on one thread)")
    # every candidate twice, interleaved, each keeping its better figure (the machine may be busy)
    found = {}  # (variant, coretype): probe result
    for _ in range(2):
        for v in variants:
            openblas = v in OPENBLAS_DIRS or default_info["blas"]["core"]
            for ct in [None] + ([name for name, need in CORETYPES if need <= flags] if openblas else []):
                try:
                    # one thread for the BLAS too: torch.set_num_threads does not reach OpenBLAS's
                    # own pthread pool, which would otherwise run the probe on every core
                    env = variant_env(base, v, ct)
                    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
                    r = run_child(["--probe"], env, 300)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print(f"  {v} core {ct or 'auto'}: failed ({e})")
                    continue
                if (v, ct) not in found or r["gflops"] > found[(v, ct)]["gflops"]:
                    found[(v, ct)] = r
    chosen, probes = {}, []
    for (v, ct), r in found.items():
        got = r["blas"]["core"] or "n/a"
        probes.append(f"{v} {ct or 'auto'}->{got} {r['gflops']:.0f}")
        print(f"  {v}, OPENBLAS_CORETYPE={ct or '(auto)'}: kernel {got}, {r['gflops']:.1f} GFLOP/s (512^3 matmul, 1 thread)")
        if v not in chosen or r["gflops"] > chosen[v][1]:
            chosen[v] = (ct, r["gflops"], r)
    if not chosen:
        fail("no BLAS variant could be measured")

    # 2. the settings: (name, env, torch threads, nominal threads)
    settings = [("default", dict(os.environ), 0, None)]
    for v, (ct, _, _) in chosen.items():
        e1 = variant_env(base, v, ct)
        e1.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        settings.append((f"{v}/t1", e1, 1, 1))
        if nthreads > 1:
            for wait in ("", "active", "passive"):  # "": libgomp's default (spin a while, then sleep)
                e2 = variant_env(base, v, ct)
                e2.update(OMP_NUM_THREADS=str(nthreads), OPENBLAS_NUM_THREADS=str(nthreads), MKL_NUM_THREADS=str(nthreads))
                if wait:
                    e2["OMP_WAIT_POLICY"] = wait
                settings.append((f"{v}/t{nthreads}" + (f"/{wait}" if wait else ""), e2, nthreads, nthreads))
            if v == "openblas-pthread":  # OpenBLAS's own pool is independent of torch's threads
                e3 = variant_env(base, v, ct)
                e3.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS=str(nthreads))
                settings.append((f"{v}/t1-b{nthreads}", e3, 1, nthreads))
    if args.settings:
        want = set(args.settings.split(","))
        unknown = want - {s[0] for s in settings}
        if unknown:
            fail(f"unknown setting(s) {', '.join(sorted(unknown))}; known: {', '.join(s[0] for s in settings)}")
        settings = [s for s in settings if s[0] in want]

    # 3. the measurements: rounds outermost, so a slow phase of the machine hits every setting
    best, seen_blas = {}, {}
    for rnd in range(args.rounds):
        for c in configs:
            for name, env, tt, nominal in settings:
                if rnd > 0 and (c, name) in best and best[(c, name)][1] > PRUNE * min(
                        ms for (cc, _), (_, ms) in best.items() if cc == c):
                    continue  # far behind after round 1: it cannot become the anchor
                try:
                    r = run_child(["--child", c, "--torch-threads", str(tt), "--steps", str(args.steps)], env, 3600)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print(f"  {c} {name}: failed ({e})", flush=True)
                    continue
                threads = nominal if nominal is not None else max(r["torch_threads"], r["blas"]["openblas_threads"] or 1)
                key = (c, name)
                if key not in best or r["median_ms"] < best[key][1]:
                    best[key] = (threads, r["median_ms"])
                b = r["blas"]
                lib = next((p for p in b["libs"] if "libblas" in p), b["libs"][0] if b["libs"] else "?")
                seen_blas[name] = f"{os.path.realpath(lib)} (core {b['core']})" if b["core"] else os.path.realpath(lib)
                print(f"  round {rnd + 1}: {c:2} {name:32} {r['median_ms']:9.2f} ms/step", flush=True)

    # 4. the file and the table
    openblas_conf = next((r["blas"]["config"] for _, _, r in chosen.values() if r["blas"]["config"]), None)
    kernels = "; ".join(
        f"{v}: kernel {r['blas']['core'] or 'n/a'}"
        + (f" (OPENBLAS_CORETYPE={ct}; auto-detection gives {default_core(probes, v)})" if ct else " (auto-detected)")
        for v, (ct, _, r) in chosen.items())
    blas_line = (openblas_conf.split(" NO_")[0] + ", " if openblas_conf else ("MKL, " if mkl else "")) + kernels
    cmd = " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv)
    lines = [
        MARKER,
        f"# torch: {default_info['version']} ({sys.executable}, Python {platform.python_version()})",
        f"# blas: {blas_line}",
        f"# default: `import torch` loads {os.path.realpath(default_info['blas']['libs'][0]) if default_info['blas']['libs'] else '?'}"
        f" (core {default_info['blas']['core'] or 'n/a'})",
        f"# kernels probed (512^3 float32 matmul, GFLOP/s on 1 thread): {', '.join(probes)}",
        f"# cpu: {cpu}, {ncpu} logical CPUs",
        f"# date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"# command: {cmd}",
        f"# each row: median ms/step of {args.steps} steps after {WARMUP} warm-up, the best of {args.rounds} round(s)",
        COLUMNS,
    ]
    rows = []
    for c in configs:
        for name, _, _, _ in settings:
            if (c, name) in best:
                th, ms = best[(c, name)]
                rows.append(f"{c},{name},{th},{ms:.3f}")
    if not rows:
        fail("every measurement failed")
    # a fresh temporary file beside the output (never an existing one), renamed over it at the end
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(args.out) + ".", dir=os.path.dirname(os.path.abspath(args.out)))
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines + rows) + "\n")
    os.replace(tmp, args.out)

    print()
    print(f"PyTorch {default_info['version']}, {blas_line}")
    print("| config | setting | threads | ms/step | |")
    print("|---|---|---:|---:|---|")
    for c in configs:
        mine = [(best[(c, s[0])], s[0]) for s in settings if (c, s[0]) in best]
        if not mine:
            continue
        top = min(ms for (_, ms), _ in mine)
        for (th, ms), name in mine:
            print(f"| {c} | {name} | {th} | {ms:.1f} | {'best' if ms == top else f'{ms / top:.2f}x the best'} |")
    print(f"\nwrote {args.out} (./bench reads it: make bench)")


def default_core(probes, variant):
    for p in probes:
        if p.startswith(variant + " auto->"):
            return p.split("->")[1].split()[0]
    return "?"


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:  # one line, not a traceback
        fail(str(e))
