#!/usr/bin/env python3
"""Timings of nufftmp through Python (the installed package).

  bench_python.py overhead [--gpu]   per-call overhead of the Python layer on small problems:
        the time of Plan.execute / Plan.setpts against the bare binding call on the same C++
        plan with the addresses taken once (types 1, 2 and 3) (what is left is the Python layer: array checks,
        output allocation, address look-ups). CPU engine with numpy; --gpu: CUDA engine with
        CuPy (and PyTorch when installed), wall time per call of many calls, synchronized at
        the end.
  bench_python.py case --prec f --type 1 --N 128 128 128 --M 16777216 --tol 1e-5 [--n_runs 10]
        one transform on the GPU from CuPy arrays (type 3: prod(N) targets drawn as
        nufftmp-bench draws them): execute timed with CUDA events around the
        Python call (what a Python user sees), printed as one JSON line with the fields of
        nufftmp-bench's (exec_ms = fastest, exec_ms_median), to put next to it.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import nufftmp


def per_call(fn, n):
    # At most n calls per round, fewer for slow calls (about 0.1 s a round); best of 5 rounds.
    t0 = time.perf_counter()
    fn()
    n = max(5, min(n, int(0.1 / max(time.perf_counter() - t0, 1e-9))))
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6  # us


CASES = [  # (type, n_modes or type 3's (dim, N), M, n_trans, dtype)
    (1, (32,), 64, 1, "complex128"),
    (2, (32,), 64, 1, "complex128"),
    (1, (16, 16), 100, 1, "complex64"),
    (2, (8, 8, 8), 100, 4, "complex128"),
    (3, (1, 64), 64, 1, "complex128"),
    (3, (2, 100), 100, 1, "complex64"),
    (3, (3, 100), 100, 2, "complex128"),
]
# Type 3 targets lie in [-T3_S, T3_S] per axis (sources in [-pi, pi]): small grids (32 per
# axis at eps 1e-6), as small problems are where the per-call overhead shows.
T3_S = 6.0


class Case:
    """One case's plan with its points set and its data, on the host (to_dev None) or in
    device arrays; the raw arguments of the binding calls (addresses taken once)."""

    def __init__(self, case, rng, to_dev=None, ptr=None):
        tp, modes, M, nt, dt = case
        real = np.float32 if dt == "complex64" else np.float64
        dev = to_dev or (lambda a: a)
        ptr = ptr or (lambda a: a.ctypes.data)
        dim = modes[0] if tp == 3 else len(modes)
        pts = [rng.uniform(-np.pi, np.pi, M).astype(real) for _ in range(dim)]
        if tp == 3:
            N = modes[1]
            tgt = [rng.uniform(-T3_S, T3_S, N).astype(real) for _ in range(dim)]
            self.plan = nufftmp.Plan(3, dim, n_trans=nt, eps=1e-6, dtype=dt)
            pad = [None] * (3 - dim)
            self.args = [dev(a) for a in pts] + pad + [dev(a) for a in tgt]
            shape_in = (nt, M)
        else:
            self.plan = nufftmp.Plan(tp, modes, n_trans=nt, eps=1e-6, dtype=dt)
            self.args = [dev(a) for a in pts]
            shape_in = (nt, M) if tp == 1 else (nt,) + modes
        self.plan.setpts(*self.args)
        self.data = dev((rng.standard_normal(shape_in) + 0j).astype(dt))
        self.out = self.plan.execute(self.data)
        c, f = (self.out, self.data) if tp == 2 else (self.data, self.out)
        self.cf = ptr(c), ptr(f)
        raw = [ptr(a) for a in reversed(self.args[:dim])] + [0] * (3 - dim)
        if tp == 3:
            raw += [N] + [ptr(a) for a in reversed(self.args[3:])] + [0] * (3 - dim)
        self.raw_points = (M, *raw)
        self.row = {"type": tp, "modes": modes if tp != 3 else f"{dim}d N={N}", "M": M,
                    "n_trans": nt, "dtype": dt}


class _NoCalls:
    """The C++ plan with its host-array calls replaced by no-ops (queries pass through)."""

    def __init__(self, inner):
        self._real = inner

    def __getattr__(self, name):
        if name in ("execute_host_arrays", "set_points_host_arrays"):
            return lambda *a: None
        return getattr(self._real, name)


def overhead_cpu(rows):
    rng = np.random.default_rng(1)
    for case in CASES:
        k = Case(case, rng)
        plan, inner, data, out, args = k.plan, k.plan.inner, k.data, k.out, k.args
        t_py = per_call(lambda: plan.execute(data), 2000)
        t_py_out = per_call(lambda: plan.execute(data, out=out), 2000)
        t_bind = per_call(lambda: inner.execute_host(*k.cf), 2000)
        t_set_py = per_call(lambda: plan.setpts(*args), 500)
        t_set_bind = per_call(lambda: inner.set_points_host(*k.raw_points), 500)
        # The Python layer alone: the same calls with the C++ call replaced by a no-op (on a
        # busy machine the difference of two timings is noisier than this).
        plan._inner = _NoCalls(inner)
        t_layer = per_call(lambda: plan.execute(data), 20000)
        t_layer_out = per_call(lambda: plan.execute(data, out=out), 20000)
        t_layer_set = per_call(lambda: plan.setpts(*args), 20000)
        plan._inner = inner
        rows.append({"engine": "cpu", **k.row, "execute_us": t_py, "execute_out_us": t_py_out,
                     "binding_execute_us": t_bind, "overhead_us": t_py - t_bind,
                     "python_layer_us": t_layer, "python_layer_out_us": t_layer_out,
                     "setpts_us": t_set_py, "binding_setpts_us": t_set_bind,
                     "python_layer_setpts_us": t_layer_set})


def overhead_gpu(rows, libname):
    lib = __import__(libname)
    rng = np.random.default_rng(1)

    def dev(a):
        return lib.asarray(a) if libname == "cupy" else lib.from_numpy(a).cuda()

    def sync():
        (lib.cuda.Device().synchronize() if libname == "cupy" else lib.cuda.synchronize())

    def ptr(a):
        return a.data.ptr if libname == "cupy" else a.data_ptr()

    for case in CASES:
        k = Case(case, rng, dev, ptr)
        plan, inner, data = k.plan, k.plan.inner, k.data

        def timed(fn, n=500):
            fn()
            sync()
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                sync()
                best = min(best, (time.perf_counter() - t0) / n)
            return best * 1e6
        t_py = timed(lambda: plan.execute(data))
        t_bind = timed(lambda: inner.execute(*k.cf))
        rows.append({"engine": "cuda", "arrays": libname, **k.row, "execute_us": t_py,
                     "binding_execute_us": t_bind, "overhead_us": t_py - t_bind})


def overhead(args):
    rows = []
    overhead_cpu(rows)
    if args.gpu:
        for libname in ("cupy", "torch"):
            try:
                __import__(libname)
            except ImportError:
                print(f"# {libname} not installed: skipped", file=sys.stderr)
                continue
            overhead_gpu(rows, libname)
    for r in rows:
        print(json.dumps(r))
    print("\nengine arrays type modes        M  ntr dtype      execute_us binding_us difference"
          "  python_layer_us (execute, out=, setpts)")
    for r in rows:
        layer = (f"{r['python_layer_us']:6.2f} {r['python_layer_out_us']:6.2f} "
                 f"{r['python_layer_setpts_us']:6.2f}" if "python_layer_us" in r else "")
        modes = r["modes"] if isinstance(r["modes"], str) else "x".join(map(str, r["modes"]))
        print(f"{r['engine']:6s} {r.get('arrays', 'numpy'):6s} {r['type']:4d} "
              f"{modes:10s} {r['M']:5d} {r['n_trans']:4d} "
              f"{r['dtype']:10s} {r['execute_us']:10.2f} {r['binding_execute_us']:10.2f} "
              f"{r['overhead_us']:10.2f}  {layer}")


def case(args):
    import cupy as cp
    dt = "complex64" if args.prec == "f" else "complex128"
    real = np.float32 if args.prec == "f" else np.float64
    modes = tuple(args.N)
    rs = cp.random.RandomState(1)
    pts = [(rs.uniform(-np.pi, np.pi, args.M)).astype(real) for _ in modes]
    shape_in = modes if args.type == 2 else (args.M,)
    data = (rs.standard_normal(shape_in) + 1j * rs.standard_normal(shape_in)).astype(dt)
    targets = []
    if args.type == 3:
        # nufftmp-bench's (and cuperftest's) type 3 targets: prod(N) of them, per axis
        # (N_i / 2)(u + a_i), u uniform in [-1, 1), a = (1.7, -0.5, 0.9).
        n_tgt = int(np.prod(modes))
        shift = (1.7, -0.5, 0.9)
        targets = [None] * (3 - len(modes)) + [
            ((rs.uniform(-1, 1, n_tgt) + shift[d]) * (modes[d] / 2)).astype(real)
            for d in range(len(modes))]
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    if args.type == 3:
        plan = nufftmp.Plan(3, len(modes), eps=args.tol, dtype=dt)
    else:
        plan = nufftmp.Plan(args.type, modes, eps=args.tol, dtype=dt)
    plan.setpts(*pts, *targets)
    cp.cuda.Device().synchronize()
    setup_ms = (time.perf_counter() - t0) * 1e3
    out = plan.execute(data)
    times = []
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(args.n_runs):
        start.record()
        plan.execute(data, out=out)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    print(json.dumps({"via": "python+cupy", "prec": args.prec, "type": args.type,
                      "N": list(modes), "M": args.M, "tol": args.tol,
                      "method": nufftmp._core.method_name(plan.inner.method),
                      "plan_setpts_ms": setup_ms, "exec_ms": min(times),
                      "exec_ms_median": statistics.median(times), "n_runs": args.n_runs}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("overhead")
    o.add_argument("--gpu", action="store_true")
    c = sub.add_parser("case")
    c.add_argument("--prec", choices=["f", "d"], default="f")
    c.add_argument("--type", type=int, default=1)
    c.add_argument("--N", type=int, nargs="+", default=[128, 128, 128])
    c.add_argument("--M", type=int, default=16777216)
    c.add_argument("--tol", type=float, default=1e-5)
    c.add_argument("--n_runs", type=int, default=10)
    args = ap.parse_args()
    overhead(args) if args.cmd == "overhead" else case(args)


if __name__ == "__main__":
    main()
