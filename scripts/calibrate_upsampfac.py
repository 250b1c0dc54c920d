#!/usr/bin/env python3
"""Calibrates the CPU constants of src/core/common/upsampfac.cpp and checks the choice.

Compiles scripts/upsampfac_timing.cpp against a build's libnufftmp, times one execute (thread
CPU time, one thread) of 96 problems (1D-3D, types 1-2, float/double, densities 0.1 and 1) at
sigma 1.25, 1.5 and 2, fits per precision
    time = M (per_point + per_cell * w^(dim-1) ceil(2 w sizeof(T) / 64)) + G log2(G) fft
by non-negative least squares on relative residuals, and reports how much slower the sigma the
fitted model picks among the three is than the fastest measured (and the same for sigma = 2
always). About 5 minutes on a 2-core machine.
  build/venv/bin/python scripts/calibrate_upsampfac.py --build build [--times FILE]
(numpy and scipy needed; --times reuses a previous run's output.)
"""
import argparse
import os
import subprocess
from collections import defaultdict

import numpy as np
from scipy.optimize import nnls


def cells(dim, w, prec):
    return w ** (dim - 1) * np.ceil(2 * w * (4 if prec == "f" else 8) / 64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--times", default=None, help="output of a previous run to refit")
    args = ap.parse_args()
    if args.times:
        text = open(args.times).read()
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        exe = os.path.join(args.build, "upsampfac_timing")
        lib = os.path.abspath(os.path.join(args.build, "src", "core"))
        subprocess.run(["g++", "-O2", "-std=c++17", "-fopenmp", "-I", os.path.join(here, "..", "include"),
                        os.path.join(here, "upsampfac_timing.cpp"), "-o", exe, "-L", lib, "-lnufftmp",
                        "-Wl,-rpath," + lib], check=True)
        text = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(args.build, "upsampfac_times.txt"), "w") as f:
            f.write(text)
    rows = [l.split() for l in text.splitlines() if l.strip()]
    fits = {}
    for prec in "fd":
        rs = [r for r in rows if r[2] == prec]
        A = np.array([[float(r[5]), float(r[5]) * cells(int(r[1]), int(r[6]), prec),
                       float(r[7]) * np.log2(float(r[7]))] for r in rs])
        y = np.array([float(r[8]) * 1e6 for r in rs])  # ns
        x, _ = nnls(A / y[:, None], np.ones(len(y)))
        e = A @ x / y - 1
        fits[prec] = x
        print("%s: per_point %.2f ns, per_cell %.3f ns, fft %.3f ns; residual rms %.0f%%, max %.0f%%"
              % ((prec,) + tuple(x) + (100 * np.sqrt(np.mean(e ** 2)), 100 * np.max(np.abs(e)))))
    # Decisions: rows come in blocks of 12 (3 sigmas x 4 precision-tolerances) per problem.
    groups = defaultdict(list)
    for i, r in enumerate(rows):
        groups[(i // 12, r[2], r[3])].append(r)
    model = lambda r: float(r[5]) * (fits[r[2]][0] + fits[r[2]][1] * cells(int(r[1]), int(r[6]), r[2])) \
        + fits[r[2]][2] * float(r[7]) * np.log2(float(r[7]))
    loss, loss2 = [], []
    for rs in groups.values():
        if len(rs) != 3:
            continue
        best = min(float(r[8]) for r in rs)
        loss.append(float(min(rs, key=model)[8]) / best)
        loss2.append(float(next(r for r in rs if float(r[4]) == 2.0)[8]) / best)
    print("model's pick among sigma 1.25/1.5/2: mean %.3f, max %.3f x the fastest (%d problems)"
          % (np.mean(loss), max(loss), len(loss)))
    print("sigma = 2 always:                    mean %.3f, max %.3f x the fastest"
          % (np.mean(loss2), max(loss2)))


if __name__ == "__main__":
    main()
