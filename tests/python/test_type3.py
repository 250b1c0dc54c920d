"""Type 3 (nonuniform to nonuniform) on the CPU engine: Plan(3, dim), setpts(x, y, z, s, t, u),
execute, execute_adjoint and nufft1d3 ... nufft3d3 against numpy direct sums, batches, out=,
and bad inputs (FINUFFT's/cuFINUFFT's error kinds; the C++ messages with the caller's names)."""

import numpy as np
import pytest

import nufftmp
from conftest import direct_type3, random_complex, rel_err, tol_for, type3_points

DTYPES = [np.complex64, np.complex128]
PAD = {1: (None, None), 2: (None,), 3: ()}


def setpts3(plan, src, tgt):
    dim = len(src)
    plan.setpts(*src, *PAD[dim], *tgt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type3_matches_direct_sum(rng, dim, dtype):
    eps, bound = tol_for(dtype)
    M, N = 250, 170
    src, tgt = type3_points(rng, dim, M, N, dtype)
    c = random_complex(rng, M, dtype)
    plan = nufftmp.Plan(3, dim, eps=eps, dtype=dtype)
    setpts3(plan, src, tgt)
    f = plan.execute(c)
    assert f.shape == (N,) and f.dtype == dtype
    assert rel_err(f, direct_type3(src, c, tgt, +1)) < bound
    assert plan.type == 3 and plan.dim == dim and plan.inner.num_modes == N
    assert plan.inner.num_points == M


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type3_batch_out_and_isign(rng, dim):
    M, N, nt = 120, 90, 3
    src, tgt = type3_points(rng, dim, M, N, np.complex128)
    c = random_complex(rng, (nt, M), np.complex128)
    plan = nufftmp.Plan(3, dim, n_trans=nt, eps=1e-10, isign=-1)
    setpts3(plan, src, tgt)
    ref = direct_type3(src, c, tgt, -1)
    out = np.zeros((nt, N), np.complex128)
    assert plan.execute(c, out=out) is out
    assert rel_err(out, ref) < 1e-8
    # the batch as several leading axes (cuFINUFFT's rule), and every vector alone
    assert rel_err(plan.execute(c.reshape(1, nt, M)).reshape(nt, N), ref) < 1e-8
    one = nufftmp.Plan(3, dim, eps=1e-10, isign=-1)
    setpts3(one, src, tgt)
    for v in range(nt):
        assert rel_err(one.execute(c[v]), ref[v]) < 1e-8


def test_type3_new_points_resize_the_plan(rng):
    # A second setpts with other extents and counts: the grid follows the new points.
    plan = nufftmp.Plan(3, 2, eps=1e-10)
    for M, N, scale in ((60, 40, 1.0), (150, 75, 3.0)):
        src, tgt = type3_points(rng, 2, M, N, np.complex128)
        tgt = [scale * t for t in tgt]
        c = random_complex(rng, M, np.complex128)
        setpts3(plan, src, tgt)
        assert rel_err(plan.execute(c), direct_type3(src, c, tgt, 1)) < 1e-8


@pytest.mark.parametrize("dim", [1, 3])
def test_type3_adjoint(rng, dim):
    # FINUFFT 2.5's execute_adjoint: values at the targets -> strengths at the sources,
    # c[j] = sum_k f[k] exp(-isign i s_k.x_j); and <A c, f> = <c, A^H f>.
    M, N, nt = 110, 80, 2
    src, tgt = type3_points(rng, dim, M, N, np.complex128)
    plan = nufftmp.Plan(3, dim, n_trans=nt, eps=1e-10)
    setpts3(plan, src, tgt)
    f = random_complex(rng, (nt, N), np.complex128)
    back = plan.execute_adjoint(f)
    assert back.shape == (nt, M)
    phase = sum(s[:, None] * x[None, :] for s, x in zip(tgt, src))
    ref = f @ np.exp(-1j * phase)
    assert rel_err(back, ref) < 1e-8
    c = random_complex(rng, (nt, M), np.complex128)
    lhs = np.vdot(plan.execute(c), f)
    rhs = np.vdot(c, back)
    assert abs(lhs - rhs) < 1e-8 * abs(lhs)
    # new points reach the adjoint plan too
    src2, tgt2 = type3_points(rng, dim, 50, 30, np.complex128)
    setpts3(plan, src2, tgt2)
    f2 = random_complex(rng, (nt, 30), np.complex128)
    phase2 = sum(s[:, None] * x[None, :] for s, x in zip(tgt2, src2))
    assert rel_err(plan.execute_adjoint(f2), f2 @ np.exp(-1j * phase2)) < 1e-8


def test_type3_no_sources_or_no_targets(rng):
    src, tgt = type3_points(rng, 2, 40, 30, np.complex128)
    plan = nufftmp.Plan(3, 2, eps=1e-8)
    setpts3(plan, [np.zeros(0)] * 2, tgt)
    f = plan.execute(np.zeros(0, np.complex128))
    assert f.shape == (30,) and not f.any()
    setpts3(plan, src, [np.zeros(0)] * 2)
    assert plan.execute(random_complex(rng, 40, np.complex128)).shape == (0,)


def test_type3_points_anywhere_and_dtype_from_points(rng):
    # Any finite reals (no [-3pi, 3pi] limit); float32 points without dtype -> complex64.
    src = [rng.uniform(100.0, 140.0, 80).astype(np.float32)]
    tgt = [rng.uniform(-0.9, 0.4, 60).astype(np.float32)]
    c = random_complex(rng, 80, np.complex64)
    plan = nufftmp.Plan(3, 1, eps=1e-5)
    setpts3(plan, src, tgt)
    assert plan.dtype == np.complex64
    assert rel_err(plan.execute(c), direct_type3(src, c, tgt, 1)) < 2e-4


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_one_call_type3(rng, dim):
    fn = {1: nufftmp.nufft1d3, 2: nufftmp.nufft2d3, 3: nufftmp.nufft3d3}[dim]
    M, N = 100, 70
    for dtype in DTYPES:
        eps, bound = tol_for(dtype)
        src, tgt = type3_points(rng, dim, M, N, dtype)
        c = random_complex(rng, (2, M), dtype)
        f = fn(*src, c, *tgt, eps=eps)
        assert f.shape == (2, N) and f.dtype == dtype
        assert rel_err(f, direct_type3(src, c, tgt, 1)) < bound
    out = np.empty(N, np.complex128)
    src, tgt = type3_points(rng, dim, M, N, np.complex128)
    c = random_complex(rng, M, np.complex128)
    assert fn(*src, c, *tgt, out=out, eps=1e-10, isign=-1) is out
    assert rel_err(out, direct_type3(src, c, tgt, -1)) < 1e-8


def test_type3_plan_arguments():
    with pytest.raises(ValueError, match="single number, the dimension"):
        nufftmp.Plan(3, (4, 4))
    with pytest.raises(ValueError, match="dimensions 1, 2, and 3"):
        nufftmp.Plan(3, 4)
    with pytest.raises(NotImplementedError, match="spreadinterponly"):
        nufftmp.Plan(3, 2, spreadinterponly=1)
    with pytest.raises(nufftmp.InvalidArgumentError, match="upsampfac = 3"):
        nufftmp.Plan(3, 2, upsampfac=3.0)  # the C++ checks, at construction
    assert nufftmp.Plan(3, 2).isign == 1


def test_type3_bad_inputs(rng):
    src, tgt = type3_points(rng, 2, 20, 10, np.complex128)
    plan = nufftmp.Plan(3, 2, eps=1e-8)
    with pytest.raises(ValueError, match="`s` is missing"):
        plan.setpts(*src)
    with pytest.raises(ValueError, match="`t` is missing"):
        plan.setpts(*src, s=tgt[0])
    with pytest.raises(ValueError, match="Plan dimension is 2, but `u` was specified"):
        plan.setpts(*src, None, *tgt, np.zeros(10))
    with pytest.raises(nufftmp.ShapeError, match=r"`t` must be of shape \(10,\)"):
        plan.setpts(*src, None, tgt[0], np.zeros(11))
    with pytest.raises(nufftmp.ShapeError, match="`s` must be a vector"):
        plan.setpts(*src, None, tgt[0].reshape(2, 5), tgt[1].reshape(2, 5))
    with pytest.raises(TypeError, match="`s` does not have the correct dtype: float32 was given"):
        plan.setpts(*src, None, tgt[0].astype(np.float32), tgt[1])
    with pytest.raises(RuntimeError, match="setpts"):
        plan.execute(np.zeros(20, np.complex128))
    setpts3(plan, src, tgt)
    with pytest.raises(nufftmp.ShapeError, match=r"`data` must be of shape \(20,\)"):
        plan.execute(np.zeros(10, np.complex128))  # N values where M strengths go
    with pytest.raises(nufftmp.ShapeError, match=r"`out` must be of shape \(10,\)"):
        plan.execute(np.zeros(20, np.complex128), out=np.zeros(20, np.complex128))
    with pytest.raises(TypeError, match="`data` does not have the correct dtype"):
        plan.execute(np.zeros(20, np.complex64))
    with pytest.raises(nufftmp.ShapeError, match=r"`data` must be of shape \(10,\)"):
        plan.execute_adjoint(np.zeros(20, np.complex128))
    # One-call functions: lengths and batch shapes checked too.
    with pytest.raises(ValueError, match="must end with axes"):
        nufftmp.nufft2d3(*src, np.zeros(21, complex), *tgt)
    with pytest.raises(ValueError, match=r"`y` must be of shape \(20,\)"):
        nufftmp.nufft2d3(src[0], src[1][:5], np.zeros(20, complex), *tgt)


@pytest.mark.parametrize("dim", [2, 3])
def test_type3_bad_points_are_named_as_given(rng, dim):
    # NaN / Inf anywhere: a BadPointsError (a ValueError) naming the argument as the caller
    # named it (the C++ plan sees the axes reversed) and the index.
    src, tgt = type3_points(rng, dim, 20, 10, np.complex128)
    plan = nufftmp.Plan(3, dim, eps=1e-8)
    names = "xyz"[:dim] + "stu"[:dim]
    for i, name in enumerate(names):
        pts = [a.copy() for a in src + tgt]
        pts[i][3] = np.nan if i % 2 else np.inf
        with pytest.raises(nufftmp.BadPointsError, match=rf"\b{name}\[3\] = (nan|inf)") as e:
            setpts3(plan, pts[:dim], pts[dim:])
        assert isinstance(e.value, ValueError)
    # after a failed setpts the plan needs points again, then works
    with pytest.raises(RuntimeError, match="setpts"):
        plan.execute(np.zeros(20, np.complex128))
    setpts3(plan, src, tgt)
    c = random_complex(rng, 20, np.complex128)
    assert rel_err(plan.execute(c), direct_type3(src, c, tgt, 1)) < 1e-6


def test_type3_host_and_device_targets_do_not_mix():
    class FakeDevice:  # a device array as seen through __cuda_array_interface__
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f8", "data": (1 << 40, False),
                                    "version": 3, "strides": None, "stream": None}
    plan = nufftmp.Plan(3, 1, backend="cpu")
    with pytest.raises(TypeError, match="`s` is in device memory, `x` is not"):
        plan.setpts(np.zeros(3), s=FakeDevice())


def test_type3_targets_are_refused_elsewhere():
    p = nufftmp.Plan(1, (8,))
    with pytest.raises(ValueError, match="targets of a type 3 plan"):
        p.setpts(np.zeros(3), s=np.zeros(3))
