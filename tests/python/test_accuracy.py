"""Every dimension x type x precision against numpy direct sums, on the CPU engine, with
FINUFFT's shape conventions (n_modes = (N1, N2, N3) <-> (x, y, z), C order)."""

import numpy as np
import pytest

import nufftmp
from conftest import (MODES, direct_type1, direct_type2, random_complex, random_points,
                      real_of, rel_err, tol_for)

DTYPES = [np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type1_matches_direct_sum(rng, dim, dtype):
    eps, bound = tol_for(dtype)
    n_modes, M = MODES[dim], 300
    pts = random_points(rng, dim, M, dtype)
    c = random_complex(rng, M, dtype)
    plan = nufftmp.Plan(1, n_modes, eps=eps, dtype=dtype)
    plan.setpts(*pts)
    f = plan.execute(c)
    assert f.shape == n_modes and f.dtype == dtype
    assert rel_err(f, direct_type1(pts, c, n_modes, +1)) < bound


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type2_matches_direct_sum(rng, dim, dtype):
    eps, bound = tol_for(dtype)
    n_modes, M = MODES[dim], 300
    pts = random_points(rng, dim, M, dtype)
    f = random_complex(rng, n_modes, dtype)
    plan = nufftmp.Plan(2, n_modes, eps=eps, dtype=dtype)
    plan.setpts(*pts)
    c = plan.execute(f)
    assert c.shape == (M,) and c.dtype == dtype
    assert rel_err(c, direct_type2(pts, f, -1)) < bound


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_axis_k_pairs_with_coordinate_k(dim):
    # One point with unit strength: f[k] = exp(i k.x) exactly tells which axis is which.
    n_modes = MODES[dim]
    x0 = np.array([0.3, -1.1, 2.0][:dim])
    plan = nufftmp.Plan(1, n_modes, eps=1e-12)
    plan.setpts(*[np.array([v]) for v in x0])
    f = plan.execute(np.ones(1, np.complex128))
    for d in range(dim):
        k = 1  # mode +1 along axis d, 0 elsewhere (index N//2 is mode 0 under modeord 0)
        idx = [N // 2 for N in n_modes]
        idx[d] += k
        assert abs(f[tuple(idx)] - np.exp(1j * x0[d])) < 1e-10


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_isign_and_points_beyond_pi(rng, dim):
    # Coordinates anywhere in [-3pi, 3pi) are folded; isign -1 for type 1 too.
    n_modes, M = MODES[dim], 200
    pts = random_points(rng, dim, M, np.complex128, spread=3 * np.pi * 0.999)
    c = random_complex(rng, M, np.complex128)
    f = nufftmp.Plan(1, n_modes, eps=1e-10, isign=-1)
    f.setpts(*pts)
    assert rel_err(f.execute(c), direct_type1(pts, c, n_modes, -1)) < 1e-8


@pytest.mark.parametrize("dtype", DTYPES)
def test_upsampfac_125(rng, dtype):
    eps, bound = tol_for(dtype)
    pts = random_points(rng, 2, 300, dtype)
    c = random_complex(rng, 300, dtype)
    plan = nufftmp.Plan(1, (16, 10), eps=eps, dtype=dtype, upsampfac=1.25)
    plan.setpts(*pts)
    assert plan.inner.upsampfac == 1.25
    assert rel_err(plan.execute(c), direct_type1(pts, c, (16, 10), 1)) < bound


def test_coordinates_of_the_plans_real_dtype(rng):
    pts = random_points(rng, 1, 50, np.complex64)
    assert pts[0].dtype == real_of(np.complex64)
    plan = nufftmp.Plan(2, (8,), dtype="complex64")
    plan.setpts(*pts)
    assert plan.execute(np.ones(8, np.complex64)).dtype == np.complex64
