# The GPU engine's floor against the CPU engine's on the same data (issue 11's floor pair: 3D
# double type 2, tol 1e-14, N = 24 x 20 x 28, M = 107520), split by the modes' content (all,
# radius |k / (N/2)| < 0.5 or >= 0.9, the corners, k = 0 alone, k = (-12, 0, 0) alone), the
# points' range ([-pi, pi), [0, pi), [0, 0.5)): error of each engine against the direct sum,
# |gpu - cpu|, and the part of each error that is a scale of the exact values (alpha) versus the
# residual. Needs a build with the CUDA engine (the probe runs both backends):
#   python3 scripts/floor_split.py build-gpu [full,pos,small]
# (docs/performance.md section 22; B2=cpu runs the CPU engine twice, for a machine without GPU).
import sys, os, struct, subprocess, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import numpy as np
import accuracy_vs_finufft as A
probe = A.compile_probe(sys.argv[1] if len(sys.argv) > 1 else "build-gpu")
N = (24, 20, 28); M = 107520
def run(pts, data, backend, idx, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        fin, fout = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
        with open(fin, "wb") as f:
            f.write(struct.pack("<qq", M, len(idx)))
            for p in pts: f.write(p.astype("<f8").tobytes())
            f.write(data.astype("<c16").tobytes()); f.write(idx.astype("<i8").tobytes())
        cmd = [probe, fin, fout, "d", "2", "3"] + [str(n) for n in N] + [
            "1e-14", "2", "pswf", backend]
        subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
        raw = np.fromfile(fout, dtype="<c16")
    return raw[:len(idx)], raw[len(idx):]
def split(e, exact):
    a = np.vdot(exact, e) / np.vdot(exact, exact)
    return a, np.linalg.norm(e - a * exact) / np.linalg.norm(exact)
ranges = (("full", -np.pi, np.pi), ("pos", 0.0, np.pi), ("small", 0.0, 0.5))
sel = sys.argv[2].split(",") if len(sys.argv) > 2 else None
for rng_name, lo, hi in [r for r in ranges if sel is None or r[0] in sel]:
    for mode in ("all", "low", "high", "corner", "zero", "kx"):
        for seed in (7, 8):
            rng = np.random.default_rng(seed)
            pts = [rng.uniform(lo, hi, M) for _ in range(3)]
            data = rng.uniform(-1, 1, np.prod(N)) + 1j * rng.uniform(-1, 1, np.prod(N))
            F = data.reshape(N, order="F")
            k = [np.arange(n) - n // 2 for n in N]
            rel = [kk / (n / 2.0) for kk, n in zip(k, N)]
            K = np.sqrt(sum(np.meshgrid(*[r ** 2 for r in rel], indexing="ij")))
            if mode == "low": F = F * (K < 0.5)
            if mode == "high": F = F * (K >= 0.9)
            if mode == "corner":
                F = F * (np.minimum.reduce(np.meshgrid(*[np.abs(r) for r in rel],
                                                       indexing="ij")) > 0.8)
            if mode == "zero": F = np.zeros_like(F); F[tuple(n // 2 for n in N)] = 1
            if mode == "kx": F = np.zeros_like(F); F[0, N[1] // 2, N[2] // 2] = 1  # k = (-12, 0, 0)
            data = F.reshape(-1, order="F")
            idx = np.unique(rng.integers(0, M, 3000))
            oc, exact = run(pts, data, "cpu", idx)
            og, exact2 = run(pts, data, os.environ.get("B2", "cuda"), idx)
            nrm = np.linalg.norm(exact)
            ac, rc = split(oc - exact, exact); ag, rg = split(og - exact, exact)
            print("%-5s %-6s seed %d: cpu %.3e gpu %.3e |gpu-cpu| %.3e | cpu alpha %+.2e%+.2ej res %.3e | gpu alpha %+.2e%+.2ej res %.3e" % (
                rng_name, mode, seed, np.linalg.norm(oc - exact) / nrm, np.linalg.norm(og - exact) / nrm,
                np.linalg.norm(og - oc) / nrm, ac.real, ac.imag, rc, ag.real, ag.imag, rg), flush=True)
