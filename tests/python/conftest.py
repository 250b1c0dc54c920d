"""Shared pieces of the Python package's tests: direct sums (numpy), random inputs, markers.

Markers: `gpu` (CuPy / PyTorch on the CUDA engine; skipped without a GPU), `mpi` (mpi4py;
run under `mpirun -np 2 python -m pytest -m mpi`, see tests/python/CMakeLists.txt).
"""

import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs CuPy or PyTorch and a CUDA device")
    config.addinivalue_line("markers", "mpi: needs mpi4py (run under mpirun -np 2)")


def mode_indices(N, modeord=0):
    """Signed modes of an axis of N in storage order (FINUFFT's modeord)."""
    k = np.arange(-(N // 2), (N - 1) // 2 + 1)
    return np.fft.ifftshift(k) if modeord == 1 else k


def direct_type1(pts, c, n_modes, isign, modeord=0):
    """f[k1, k2, ...] = sum_j c[..., j] exp(isign i sum_d k_d pts[d][j]); batch axes of c lead."""
    pts = [np.asarray(p, dtype=np.float64) for p in pts]
    grids = np.meshgrid(*[mode_indices(N, modeord) for N in n_modes], indexing="ij")
    phase = sum(g[..., None] * p for g, p in zip(grids, pts))  # (N1, ..., M)
    e = np.exp(1j * isign * phase)
    c = np.asarray(c, dtype=np.complex128)
    return np.tensordot(c, e, axes=([-1], [-1]))


def direct_type2(pts, f, isign, modeord=0):
    """c[..., j] = sum_k f[..., k] exp(isign i k.x_j); batch axes of f lead."""
    dim = len(pts)
    pts = [np.asarray(p, dtype=np.float64) for p in pts]
    n_modes = f.shape[f.ndim - dim:]
    grids = np.meshgrid(*[mode_indices(N, modeord) for N in n_modes], indexing="ij")
    phase = sum(g[..., None] * p for g, p in zip(grids, pts))
    e = np.exp(1j * isign * phase).reshape(-1, pts[0].size)
    fb = np.asarray(f, dtype=np.complex128).reshape(f.shape[:f.ndim - dim] + (-1,))
    return fb @ e


def rel_err(a, b):
    a = np.asarray(a, dtype=np.complex128)
    b = np.asarray(b, dtype=np.complex128)
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def tol_for(dtype):
    """(requested eps, allowed relative l2 error): a small factor above eps."""
    return (1e-5, 2e-4) if np.dtype(dtype) == np.complex64 else (1e-10, 1e-8)


def real_of(dtype):
    return np.float32 if np.dtype(dtype) == np.complex64 else np.float64


@pytest.fixture
def rng():
    return np.random.default_rng(20261201)


def random_points(rng, dim, M, dtype, spread=np.pi):
    r = real_of(dtype)
    return [rng.uniform(-spread, spread, M).astype(r) for _ in range(dim)]


def random_complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


# Distinct, mixed-parity sizes per axis: a swapped axis or a wrong parity shows at once.
MODES = {1: (13,), 2: (12, 7), 3: (6, 9, 5)}
