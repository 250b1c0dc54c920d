# Relative l2 error of cuFFT (through CuPy: a 3D plan and one plan per axis) and of numpy's
# pocketfft on complex128 3D grids, against a separable DFT in long double (x86: 80-bit), for
# random data in [-1, 1]^2. Issue 11's GPU floor question: does cuFFT add error at the fine
# grids of the floor pair (60 x 40 x 48)? On the GPU machine: python3 scripts/cufft_accuracy.py
# (docs/data/cufft_accuracy_h200_2026-12-03.txt).
import sys, time
import numpy as np
piL = np.arccos(np.longdouble(-1))
def dft_ld2(a):
    out = a.astype(np.clongdouble)
    for ax in range(a.ndim):
        n = a.shape[ax]
        jk = (np.outer(np.arange(n), np.arange(n)) % n).astype(np.longdouble)
        ang = 2 * piL * jk / n
        W = (np.cos(ang) + 1j * np.sin(ang)).astype(np.clongdouble)
        out = np.moveaxis(np.tensordot(out, W, axes=([ax], [0])), -1, ax)
    return out
def rel(a, b):
    a = a.astype(np.clongdouble); return float(np.sqrt(np.sum(np.abs(a - b) ** 2) / np.sum(np.abs(b) ** 2)))
try:
    import cupy as cp
except Exception as e:
    cp = None; print("no cupy:", e)
rng = np.random.default_rng(5)
print("eps", np.finfo(np.longdouble).eps)
for shape in [(60, 40, 48), (32, 32, 32), (64, 64, 64), (40, 40, 40), (128, 128, 128)]:
    x = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
    t = time.time(); ref = dft_ld2(x); tr = time.time() - t
    e_np = rel(np.fft.ifftn(x) * x.size, ref)
    line = "shape %s: numpy %.2e" % (shape, e_np)
    if cp is not None:
        g = cp.asarray(x)
        y = cp.fft.ifftn(g) * x.size
        e_cu = rel(cp.asnumpy(y), ref)
        # batched 1D along each axis (the same cuFFT, another plan)
        h = g
        for ax in range(3): h = cp.fft.ifft(h, axis=ax) * shape[ax]
        e_cu1 = rel(cp.asnumpy(h), ref)
        line += " cufft(3D plan) %.2e cufft(1D per axis) %.2e" % (e_cu, e_cu1)
    print(line, "(ref %.1f s)" % tr, flush=True)
