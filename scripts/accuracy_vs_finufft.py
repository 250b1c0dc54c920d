#!/usr/bin/env python3
"""nufftmp's accuracy against FINUFFT's on the same points and data.

For every dim x type x precision x point distribution and each tolerance of the sweep
1e-1..1e-14 (float to 1e-6), draws points and strengths/coefficients, runs FINUFFT (its Python
package from PyPI) and nufftmp (through scripts/accuracy_probe.cpp, compiled here against a
build's libnufftmp), and measures both against the same direct sum (nufftmp::reference, long
double accumulation) at sampled outputs: relative l2 error over the samples.

Setup (once; not run by CI):
  python3 -m venv build/venv && build/venv/bin/pip install finufft==2.5.1 numpy
  build/venv/bin/python scripts/accuracy_vs_finufft.py --build build [--sigma auto|2|1.25]

The GPU engine, where FINUFFT is not installed (the GPU machine): FINUFFT's errors are measured
here first and written with a digest of every case's data (--json); there the same seed draws
the same data again (the digests are checked), and only nufftmp runs (--backend cuda):
  build/venv/bin/python scripts/accuracy_vs_finufft.py --fin_sigma 2 --json fin2.json
  python3 scripts/accuracy_vs_finufft.py --build build-gpu --backend cuda --finufft_from fin2.json
--fin_sigma 2 is cuFINUFFT 2.6's configuration (sigma 2, the same kernel and width rule).

Prints one line per case, then the table of worst error/tol per row (markdown) and writes every
case to --json. A 2-core machine takes about 5 minutes for the whole sweep (--quick: 1 minute).
"""
import argparse
import contextlib
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

TOLS_D = [10.0 ** -k for k in range(1, 15)]
TOLS_F = [10.0 ** -k for k in range(1, 7)]


def sizes(dim, quick):
    """Modes per axis and points: density about 1 (M = prod(2 N)), as the benchmarks."""
    if dim == 1:
        return (4000 if not quick else 1000,), 8000 if not quick else 2000
    if dim == 2:
        return ((96, 80) if not quick else (40, 33)), (30720 if not quick else 5280)
    return ((24, 20, 28) if not quick else (12, 10, 14)), (107520 if not quick else 13440)


def compile_probe(build):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "accuracy_probe.cpp")
    exe = os.path.join(build, "accuracy_probe")
    lib = os.path.join(build, "src", "core", "libnufftmp.so")
    inc = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")
    if (not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src)
            or os.path.getmtime(exe) < os.path.getmtime(lib)):
        subprocess.run(["g++", "-O2", "-std=c++17", "-fopenmp", "-I", inc, src, "-o", exe,
                        "-L", os.path.dirname(lib), "-lnufftmp",
                        "-Wl,-rpath," + os.path.abspath(os.path.dirname(lib))], check=True)
    return exe


@contextlib.contextmanager
def captured_stdout():
    """FINUFFT's debug lines come from C printf: capture file descriptor 1."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        box = {}
        try:
            yield box
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            box["text"] = tmp.read().decode(errors="replace")


def finufft_run(finufft, typ, dim, N, tol, prec, sigma, pts, data):
    dt = np.complex64 if prec == "f" else np.complex128
    kw = {"debug": 1}
    if sigma != "auto":
        kw["upsampfac"] = float(sigma)
    with captured_stdout() as out:
        plan = finufft.Plan(typ, tuple(N), n_trans=1, eps=tol, isign=+1, dtype=dt, **kw)
        plan.setpts(*pts[:dim])
        if typ == 1:
            res = plan.execute(data.astype(dt))
        else:
            res = plan.execute(np.ascontiguousarray(data.reshape(tuple(N), order="F").astype(dt)))
    txt = out["text"]
    m = re.findall(r"sigma=([\d.]+): chose ns=(\d+)", txt)
    info = {"w": int(m[-1][1]) if m else None, "sigma": float(m[-1][0]) if m else None}
    return np.asarray(res), info


def rel_l2(a, b):
    return float(np.sqrt(np.sum(np.abs(a - b) ** 2) / np.sum(np.abs(b) ** 2)))


def one_case(args, finufft, probe, rng, dim, typ, prec, dist, tol, fin_from=None):
    N, M = sizes(dim, args.quick)
    N3 = list(N) + [1] * (3 - dim)
    rdt = np.float32 if prec == "f" else np.float64
    if dist == "uniform":
        pts = [rng.uniform(-np.pi, np.pi, M) for _ in range(3)]
    else:  # all points in 8 fine cells per axis (h = 2 pi / (2 N)), as nufftmp-bench --dist cluster
        pts = [rng.uniform(0, 8 * 2 * np.pi / (2 * N3[d]), M) for d in range(3)]
    pts = [p.astype(rdt).astype(np.float64) for p in pts]  # the same values for both codes
    nin = M if typ == 1 else int(np.prod(N3))
    data = (rng.uniform(-1, 1, nin) + 1j * rng.uniform(-1, 1, nin)).astype(
        np.complex64 if prec == "f" else np.complex128).astype(np.complex128)
    nout = int(np.prod(N3)) if typ == 1 else M
    idx = np.unique(np.concatenate([[0, nout - 1], rng.integers(0, nout, args.samples)]))
    with tempfile.TemporaryDirectory() as tmp:
        fin, fout = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
        with open(fin, "wb") as f:
            f.write(struct.pack("<qq", M, len(idx)))
            for p in pts:
                f.write(p.astype("<f8").tobytes())
            f.write(data.astype("<c16").tobytes())
            f.write(idx.astype("<i8").tobytes())
        with open(fin, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        cmd = [probe, fin, fout, prec, str(typ), str(dim)] + [str(n) for n in N3] + [
            repr(tol), "0" if args.sigma == "auto" else args.sigma, args.kernel, args.backend]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        ours_info = json.loads(r.stdout.strip().splitlines()[-1])
        raw = np.fromfile(fout, dtype="<c16")
    ours, exact = raw[: len(idx)], raw[len(idx):]
    row = {"dim": dim, "type": typ, "prec": prec, "dist": dist, "tol": tol, "N": list(N), "M": M,
           "ours_err": rel_l2(ours, exact), "ours_w": ours_info["w"],
           "ours_sigma": ours_info["sigma"], "backend": args.backend, "digest": digest}
    if fin_from is not None:  # FINUFFT measured elsewhere on the same data
        if "digest" not in fin_from:
            sys.exit("--finufft_from: the file has no data digests (written before they were "
                     "recorded): measure FINUFFT again with --json")
        if fin_from["digest"] != digest:
            sys.exit("--finufft_from: case %dD t%d %s %s tol %g drew other data (digest %s, "
                     "expected %s): not the same seed or numpy stream" % (
                         dim, typ, prec, dist, tol, digest[:12], fin_from["digest"][:12]))
        for k in ("fin_err", "fin_w", "fin_sigma"):
            row[k] = fin_from[k]
        return row
    fin_sigma = args.fin_sigma or args.sigma
    res, fin_info = finufft_run(finufft, typ, dim, N, tol, prec, fin_sigma,
                                [p.astype(rdt) for p in pts], data)
    fin_vals = res.reshape(-1, order="F")[idx] if typ == 1 else res.reshape(-1)[idx]
    row.update({"fin_err": rel_l2(fin_vals.astype(np.complex128), exact),
                "fin_w": fin_info["w"], "fin_sigma": fin_info["sigma"]})
    return row


def table(rows):
    """Per dim x type x precision x distribution: the worst error/tol of each code over the
    tolerances, the largest and the geometric-mean ratio of our error to FINUFFT's, and the
    tolerances where ours exceeds FINUFFT's by more than 5% (run-to-run noise of the same
    kernel on the same data is 1-3%)."""
    out = ["| dim | type | prec | dist | worst err/tol: nufftmp (at tol) | FINUFFT (at tol) |"
           " nufftmp/FINUFFT: max (at tol), geomean | tols with nufftmp > 1.05 FINUFFT |"
           " widths nufftmp / FINUFFT (tol 1e-1 .. floor) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    keys = sorted({(r["dim"], r["type"], r["prec"], r["dist"]) for r in rows},
                  key=lambda k: (k[0], k[1], k[2], k[3] != "uniform"))
    for k in keys:
        rs = [r for r in rows if (r["dim"], r["type"], r["prec"], r["dist"]) == k]
        o = max(rs, key=lambda r: r["ours_err"] / r["tol"])
        f = max(rs, key=lambda r: r["fin_err"] / r["tol"])
        q = [r["ours_err"] / r["fin_err"] for r in rs]
        qm = rs[q.index(max(q))]
        tols = sorted({r["tol"] for r in rs}, reverse=True)
        worse = sum(1 for t in tols
                    if max(r["ours_err"] for r in rs if r["tol"] == t)
                    > 1.05 * max(r["fin_err"] for r in rs if r["tol"] == t))
        first = {t: next(r for r in rs if r["tol"] == t) for t in tols}
        ws = " ".join("%s/%s" % (first[t]["ours_w"], first[t]["fin_w"]) for t in tols)
        out.append("| %d | %d | %s | %s | %.2f (%.0e) | %.2f (%.0e) | %.2f (%.0e), %.2f | %d of %d | %s |" % (
            k[0], k[1], k[2], k[3], o["ours_err"] / o["tol"], o["tol"], f["fin_err"] / f["tol"],
            f["tol"], max(q), qm["tol"], float(np.exp(np.mean(np.log(q)))), worse, len(tols), ws))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--sigma", default="auto", help="auto (both codes choose), or a fixed value")
    ap.add_argument("--fin_sigma", default=None,
                    help="FINUFFT's upsampfac when it differs from --sigma (2: cuFINUFFT's)")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"], help="nufftmp's engine")
    ap.add_argument("--finufft_from", default=None,
                    help="FINUFFT's errors from a previous --json on the same seed (no FINUFFT here)")
    ap.add_argument("--kernel", default="pswf", choices=["pswf", "es"], help="nufftmp's kernel")
    ap.add_argument("--trials", type=int, default=1, help="fresh data per case and trial")
    ap.add_argument("--samples", type=int, default=1000, help="outputs compared per case")
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--dims", default="1,2,3")
    ap.add_argument("--types", default="1,2")
    ap.add_argument("--precs", default="f,d")
    ap.add_argument("--tols", default=None, help="comma-separated subset of the sweep")
    ap.add_argument("--json", default=None, help="write every case here")
    ap.add_argument("--table_from", default=None, help="print the table of a previous --json")
    ap.add_argument("--seed", type=int, default=20261202)
    args = ap.parse_args()
    if args.table_from:
        print(table(json.load(open(args.table_from))))
        return
    fin_rows, finufft = None, None
    if args.finufft_from:
        fin_rows = json.load(open(args.finufft_from))
        version = "(from %s)" % args.finufft_from
        # FINUFFT's sigma is the reference file's, not this run's flags
        args.fin_sigma = ",".join(sorted({str(r.get("fin_sigma")) for r in fin_rows}))
    else:
        import finufft  # noqa: E402  (after the arguments: --help works without it)
        version = finufft.__version__
    probe = compile_probe(args.build)
    rng = np.random.default_rng(args.seed)
    print("FINUFFT %s, sigma %s (FINUFFT's %s), nufftmp kernel %s, backend %s" % (
        version, args.sigma, args.fin_sigma or args.sigma, args.kernel, args.backend))
    rows = []
    for dim in [int(d) for d in args.dims.split(",")]:
        for typ in [int(t) for t in args.types.split(",")]:
            for prec in args.precs.split(","):
                for dist in ("uniform", "cluster"):
                    for tol in (TOLS_F if prec == "f" else TOLS_D):
                        if args.tols and not any(abs(tol / float(t) - 1) < 1e-6
                                                 for t in args.tols.split(",")):
                            continue
                        for _ in range(args.trials):
                            if fin_rows is not None and len(rows) >= len(fin_rows):
                                sys.exit("--finufft_from: %d cases there, this run has more" %
                                         len(fin_rows))
                            ref = fin_rows[len(rows)] if fin_rows is not None else None
                            if ref is not None and (ref["dim"], ref["type"], ref["prec"],
                                                    ref["dist"], ref["tol"]) != (
                                                        dim, typ, prec, dist, tol):
                                sys.exit("--finufft_from: case %d is %s, not this run's" % (
                                    len(rows), ref))
                            r = one_case(args, finufft, probe, rng, dim, typ, prec, dist, tol,
                                         ref)
                            rows.append(r)
                            print("%dD t%d %s %-7s tol %.0e: nufftmp %.2e (w %s, sigma %.3g) "
                                  "FINUFFT %.2e (w %s, sigma %s)" % (
                                      dim, typ, prec, dist, tol, r["ours_err"], r["ours_w"],
                                      r["ours_sigma"], r["fin_err"], r["fin_w"], r["fin_sigma"]),
                                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
