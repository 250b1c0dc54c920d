"""Batches, modeord, out arguments, non-contiguous inputs, the adjoint, and the simple calls."""

import warnings

import numpy as np
import pytest

import nufftmp
from conftest import (MODES, direct_type1, direct_type2, random_complex, random_points, rel_err)


@pytest.mark.parametrize("nufft_type", [1, 2])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_batch_equals_each_vector(rng, nufft_type, dim):
    n_modes, M, nt = MODES[dim], 150, 3
    pts = random_points(rng, dim, M, np.complex128)
    shape_in = (nt, M) if nufft_type == 1 else (nt,) + n_modes
    data = random_complex(rng, shape_in, np.complex128)
    plan = nufftmp.Plan(nufft_type, n_modes, n_trans=nt, eps=1e-10)
    plan.setpts(*pts)
    out = plan.execute(data)
    assert out.shape == ((nt,) + n_modes if nufft_type == 1 else (nt, M))
    ref = (direct_type1(pts, data, n_modes, 1) if nufft_type == 1
           else direct_type2(pts, data, -1))
    assert rel_err(out, ref) < 1e-8


def test_batch_axes_may_be_several(rng):
    # cuFINUFFT: the leading axes hold n_trans vectors in any shape; the output keeps them.
    pts = random_points(rng, 2, 80, np.complex128)
    data = random_complex(rng, (2, 3, 80), np.complex128)
    plan = nufftmp.Plan(1, (6, 5), n_trans=6, eps=1e-10)
    plan.setpts(*pts)
    out = plan.execute(data)
    assert out.shape == (2, 3, 6, 5)
    assert rel_err(out, direct_type1(pts, data, (6, 5), 1)) < 1e-8


def test_single_vector_with_a_batch_axis_of_one(rng):
    pts = random_points(rng, 1, 40, np.complex128)
    c = random_complex(rng, (1, 40), np.complex128)
    plan = nufftmp.Plan(1, (9,), eps=1e-10)
    plan.setpts(*pts)
    assert plan.execute(c).shape == (1, 9)


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_modeord_1_is_fft_order(rng, dim):
    n_modes, M = MODES[dim], 120
    pts = random_points(rng, dim, M, np.complex128)
    c = random_complex(rng, M, np.complex128)
    p0 = nufftmp.Plan(1, n_modes, eps=1e-10)
    p1 = nufftmp.Plan(1, n_modes, eps=1e-10, modeord=1)
    p0.setpts(*pts)
    p1.setpts(*pts)
    f0, f1 = p0.execute(c), p1.execute(c)
    assert rel_err(f1, np.fft.ifftshift(f0)) < 1e-12
    assert rel_err(f1, direct_type1(pts, c, n_modes, 1, modeord=1)) < 1e-8
    # type 2 reads FFT order as well
    q = nufftmp.Plan(2, n_modes, eps=1e-10, modeord=1)
    q.setpts(*pts)
    assert rel_err(q.execute(f1), direct_type2(pts, f1, -1, modeord=1)) < 1e-8


@pytest.mark.parametrize("nufft_type", [1, 2])
def test_out_is_filled_and_returned(rng, nufft_type):
    pts = random_points(rng, 2, 60, np.complex128)
    plan = nufftmp.Plan(nufft_type, (8, 6), eps=1e-10)
    plan.setpts(*pts)
    data = random_complex(rng, 60 if nufft_type == 1 else (8, 6), np.complex128)
    out = np.full((8, 6) if nufft_type == 1 else 60, np.nan, np.complex128)
    res = plan.execute(data, out=out)
    assert res is out
    assert np.array_equal(out, plan.execute(data))


def test_non_contiguous_inputs_are_copied_with_a_warning(rng):
    big = random_points(rng, 2, 200, np.complex128)
    pts = [p[::2] for p in big]  # strided views
    c2 = random_complex(rng, (100, 2), np.complex128)
    plan = nufftmp.Plan(1, (7, 8), n_trans=2, eps=1e-10)
    with pytest.warns(UserWarning, match="requirement: C"):
        plan.setpts(*pts)
    with pytest.warns(UserWarning, match="requirement: C"):
        f = plan.execute(c2.T)  # (2, 100), not C-contiguous
    assert rel_err(f, direct_type1(pts, c2.T, (7, 8), 1)) < 1e-8
    # Fortran-ordered mode arrays for type 2 too
    q = nufftmp.Plan(2, (7, 8), eps=1e-10)
    q.setpts(*[np.ascontiguousarray(p) for p in pts])
    fm = np.asfortranarray(random_complex(rng, (7, 8), np.complex128))
    with pytest.warns(UserWarning):
        c = q.execute(fm)
    assert rel_err(c, direct_type2(pts, fm, -1)) < 1e-8


def test_new_points_replace_the_old(rng):
    plan = nufftmp.Plan(2, (10,), eps=1e-10)
    f = random_complex(rng, 10, np.complex128)
    for M in (30, 70):
        pts = random_points(rng, 1, M, np.complex128)
        plan.setpts(*pts)
        assert rel_err(plan.execute(f), direct_type2(pts, f, -1)) < 1e-8


@pytest.mark.parametrize("nufft_type", [1, 2])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_execute_adjoint(rng, nufft_type, dim):
    n_modes, M = MODES[dim], 90
    pts = random_points(rng, dim, M, np.complex128)
    plan = nufftmp.Plan(nufft_type, n_modes, eps=1e-10)
    plan.setpts(*pts)
    c = random_complex(rng, M, np.complex128)
    f = random_complex(rng, n_modes, np.complex128)
    if nufft_type == 1:  # A: c -> f with +1; A^H: f -> c with -1
        Ac, AHf = plan.execute(c), plan.execute_adjoint(f)
        assert rel_err(AHf, direct_type2(pts, f, -1)) < 1e-8
    else:  # A: f -> c with -1; A^H: c -> f with +1
        Ac, AHf = plan.execute_adjoint(c), plan.execute(f)
        assert rel_err(Ac, direct_type1(pts, c, n_modes, 1)) < 1e-8
    # <A c, f> = <c, A^H f>
    assert abs(np.vdot(f, Ac) - np.vdot(AHf, c)) < 1e-8 * np.linalg.norm(Ac) * np.linalg.norm(f)
    # New points reach the adjoint plan as well.
    pts2 = random_points(rng, dim, M, np.complex128)
    plan.setpts(*pts2)
    if nufft_type == 1:
        assert rel_err(plan.execute_adjoint(f), direct_type2(pts2, f, -1)) < 1e-8
    else:
        assert rel_err(plan.execute_adjoint(c), direct_type1(pts2, c, n_modes, 1)) < 1e-8


SIMPLE1 = {1: nufftmp.nufft1d1, 2: nufftmp.nufft2d1, 3: nufftmp.nufft3d1}
SIMPLE2 = {1: nufftmp.nufft1d2, 2: nufftmp.nufft2d2, 3: nufftmp.nufft3d2}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_simple_interface(rng, dim, dtype):
    n_modes, M = MODES[dim], 100
    eps, bound = (1e-5, 2e-4) if dtype == np.complex64 else (1e-10, 1e-8)
    pts = random_points(rng, dim, M, dtype)
    c = random_complex(rng, (2, M), dtype)
    f = SIMPLE1[dim](*pts, c, n_modes, eps=eps)
    assert f.shape == (2,) + n_modes and f.dtype == dtype
    assert rel_err(f, direct_type1(pts, c, n_modes, 1)) < bound
    # n_modes from `out`
    out = np.empty((2,) + n_modes, dtype)
    assert SIMPLE1[dim](*pts, c, out=out, eps=eps) is out
    assert rel_err(out, f) < bound
    # type 2: modes and n_trans from f; default isign -1
    c2 = SIMPLE2[dim](*pts, f, eps=eps)
    assert c2.shape == (2, M)
    assert rel_err(c2, direct_type2(pts, f, -1)) < bound


def test_simple_int_n_modes_means_every_axis(rng):
    pts = random_points(rng, 2, 50, np.complex128)
    c = random_complex(rng, 50, np.complex128)
    f = nufftmp.nufft2d1(*pts, c, 8, eps=1e-10, isign=-1)
    assert f.shape == (8, 8)
    assert rel_err(f, direct_type1(pts, c, (8, 8), -1)) < 1e-8


def test_import_as_finufft_runs_finufft_code(rng):
    # The README's FINUFFT snippet, unchanged after the import.
    import nufftmp as finufft
    M, N1, N2 = 2000, 24, 16
    x = 2 * np.pi * rng.uniform(size=M)
    y = 2 * np.pi * rng.uniform(size=M)
    c = rng.standard_normal(M) + 1j * rng.standard_normal(M)
    f = finufft.nufft2d1(x, y, c, (N1, N2))
    assert f.shape == (N1, N2)
    plan = finufft.Plan(2, (N1, N2), n_trans=1, eps=1e-6)
    plan.setpts(x, y)
    assert plan.execute(f).shape == (M,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about in plain FINUFFT code
        finufft.nufft1d2(x, np.ones(10, np.complex128))


def test_default_precision_follows_float32_points(rng):
    # cuFINUFFT code relies on its default complex64 with float32 points; FINUFFT code on
    # complex128 with float64 points: without a dtype argument both run.
    pts = random_points(rng, 2, 60, np.complex64)
    plan = nufftmp.Plan(1, (8, 6), eps=1e-5)
    assert plan.dtype == np.complex128
    plan.setpts(*pts)
    assert plan.dtype == np.complex64
    c = random_complex(rng, 60, np.complex64)
    f = plan.execute(c)
    assert f.dtype == np.complex64
    assert rel_err(f, direct_type1(pts, c, (8, 6), 1)) < 2e-4
    with pytest.raises(TypeError, match="float32 was given"):
        nufftmp.Plan(1, (8, 6), dtype="complex128").setpts(*pts)


def test_torch_cpu_tensors_come_back_as_tensors(rng):
    torch = pytest.importorskip("torch")
    pts = random_points(rng, 1, 40, np.complex128)
    plan = nufftmp.Plan(2, (6,), eps=1e-10)
    plan.setpts(torch.from_numpy(pts[0]))
    f = random_complex(rng, 6, np.complex128)
    c = plan.execute(torch.from_numpy(f))
    assert isinstance(c, torch.Tensor)
    assert rel_err(c.numpy(), direct_type2(pts, f, -1)) < 1e-8


def test_the_engine_is_held_by_the_plan_alone(rng):
    # The C++ plan frees its buffers on the plan's stream when it goes, so it must go before
    # the stream object the plan keeps (_stream_owner): nothing but the plan's __dict__ may
    # refer to it (cached bound methods did, and a CuPy stream was destroyed first on the GPU).
    import gc
    for t in (1, 2, 3):
        plan = nufftmp.Plan(t, 3 if t == 3 else (8, 6, 4), eps=1e-6)
        x, y, z = random_points(rng, 3, 40, np.complex128)
        if t == 3:
            plan.setpts(x, y, z, x, y, z)
        else:
            plan.setpts(x, y, z)
        plan.execute(random_complex(rng, 40 if t != 2 else (8, 6, 4), np.complex128))
        holders = [r for r in gc.get_referrers(plan.inner)
                   if r is not plan and r is not plan.__dict__]
        assert holders == [], f"type {t}: the engine is also held by {holders!r}"
        keys = list(plan.__dict__)
        assert keys.index("_inner") < keys.index("_stream_owner")
