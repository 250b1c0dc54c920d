"""DistPlan over mpi4py: run as `mpirun -np 2 python -m pytest -m mpi tests/python` (CTest
does). Every rank checks its own part against a single-device plan / direct sum it computes
itself. On one rank (plain pytest) the tests run too, as a one-rank communicator."""

import numpy as np
import pytest

import nufftmp
from conftest import (direct_type1, direct_type2, direct_type3, random_complex, random_points,
                      rel_err, type3_points)

pytestmark = pytest.mark.mpi
MPI = pytest.importorskip("mpi4py.MPI")
if not nufftmp._core.HAS_DIST:
    pytest.skip("nufftmp built without MPI", allow_module_level=True)


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def all_points(comm, pts):
    return [np.concatenate(comm.allgather(p)) for p in pts]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type1_sums_every_ranks_points(comm, dim, dtype):
    rng = np.random.default_rng(100 + comm.rank)
    eps, bound = (1e-5, 2e-4) if dtype == np.complex64 else (1e-10, 1e-8)
    n_modes = {1: (11,), 2: (8, 6), 3: (6, 5, 4)}[dim]
    M = 50 + 30 * comm.rank  # unequal shares
    pts = random_points(rng, dim, M, dtype)
    c = random_complex(rng, (2, M), dtype)
    plan = nufftmp.DistPlan(comm, 1, n_modes, n_trans=2, eps=eps, dtype=dtype)
    plan.setpts(*pts)
    f = plan.execute(c)
    assert f.shape == (2,) + n_modes and f.dtype == dtype
    ref = direct_type1(all_points(comm, pts), np.concatenate(comm.allgather(c), axis=-1),
                       n_modes, 1)
    assert rel_err(f, ref) < bound
    assert plan.num_points_total == sum(comm.allgather(M))


def test_type1_reduce_to_root(comm):
    rng = np.random.default_rng(7 + comm.rank)
    pts = random_points(rng, 2, 40, np.complex128)
    c = random_complex(rng, 40, np.complex128)
    plan = nufftmp.DistPlan(comm, 1, (6, 6), eps=1e-10, reduction="reduce", root=0)
    plan.setpts(*pts)
    f = plan.execute(c)
    every_pts, every_c = all_points(comm, pts), np.concatenate(comm.allgather(c))
    if comm.rank == 0:
        assert rel_err(f, direct_type1(every_pts, every_c, (6, 6), 1)) < 1e-8


@pytest.mark.parametrize("modes_on_all", [False, True])
def test_type2_broadcasts_root_modes(comm, modes_on_all):
    rng = np.random.default_rng(3 + comm.rank)
    pts = random_points(rng, 3, 30 + comm.rank, np.complex128)
    f = comm.bcast(random_complex(rng, (5, 6, 7), np.complex128) if comm.rank == 0 else None)
    plan = nufftmp.DistPlan(comm, 2, (5, 6, 7), eps=1e-10, modes_on_all=modes_on_all)
    plan.setpts(*pts)
    data = f if (modes_on_all or comm.rank == 0) else None
    c = plan.execute(data)
    assert c.shape == (30 + comm.rank,)
    assert rel_err(c, direct_type2(pts, f, -1)) < 1e-8


def test_a_rank_without_points(comm):
    rng = np.random.default_rng(11)
    M = 0 if comm.rank == comm.size - 1 and comm.size > 1 else 25
    pts = random_points(rng, 1, M, np.complex128)
    plan = nufftmp.DistPlan(comm, 1, (9,), eps=1e-10)
    plan.setpts(*pts)
    c = random_complex(rng, M, np.complex128)
    f = plan.execute(c)
    ref = direct_type1(all_points(comm, pts), np.concatenate(comm.allgather(c)), (9,), 1)
    assert rel_err(f, ref) < 1e-8


def test_an_error_on_one_rank_is_raised_on_every_rank(comm):
    if comm.size < 2:
        pytest.skip("needs two ranks")
    plan = nufftmp.DistPlan(comm, 1, (8,), eps=1e-8, dtype="complex128")
    # A Python-level check failing on rank 1 only.
    dt = np.float32 if comm.rank == 1 else np.float64
    with pytest.raises(Exception) as e:
        plan.setpts(np.zeros(10, dt))
    if comm.rank == 1:
        assert isinstance(e.value, TypeError)
    else:
        assert isinstance(e.value, nufftmp.RemoteFailureError) and "rank 1" in str(e.value)
    # A C++ check (a point out of range) failing on rank 0 only.
    x = np.zeros(10)
    if comm.rank == 0:
        x[4] = 50.0
    with pytest.raises(nufftmp.NufftError):
        plan.setpts(x)
    # The plan still works afterwards on every rank.
    plan.setpts(np.zeros(10))
    f = plan.execute(np.ones(10, np.complex128))
    assert np.allclose(f, 10.0 * comm.size)


def test_parameters_must_agree(comm):
    if comm.size < 2:
        pytest.skip("needs two ranks")
    # With a dtype the C++ plan is made (and the parameters compared) at construction ...
    with pytest.raises(nufftmp.NufftError, match="modes"):
        nufftmp.DistPlan(comm, 1, (8 + comm.rank,), dtype="complex128")
    with pytest.raises(nufftmp.NufftError, match="targets"):
        nufftmp.DistPlan(comm, 3, 2, dtype="complex128",
                         targets="shared" if comm.rank == 0 else "scattered")
    # ... without one at the first setpts, whose points give the precision.
    plan = nufftmp.DistPlan(comm, 1, (8 + comm.rank,))
    with pytest.raises(nufftmp.NufftError, match="modes"):
        plan.setpts(np.zeros(4))
    # A parameter's own check still fails at construction, on every rank.
    with pytest.raises(Exception) as e:
        nufftmp.DistPlan(comm, 1, (8,), upsampfac=3.0 if comm.rank == 1 else 2.0)
    assert isinstance(e.value, nufftmp.NufftError)


def _pad(dim):
    return (None,) * (3 - dim)


@pytest.mark.parametrize("targets", ["shared", "scattered"])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_type3_both_target_modes(comm, dim, targets):
    rng = np.random.default_rng(200 + comm.rank)
    M = 40 + 25 * comm.rank  # unequal shares, different extents per rank
    src, _ = type3_points(rng, dim, M, 0, np.complex128)
    src = [x + 0.7 * comm.rank for x in src]
    if targets == "shared":
        _, tgt = type3_points(np.random.default_rng(9), dim, 0, 50, np.complex128)
    else:  # each rank its own; the last of several has none
        N = 0 if comm.size > 1 and comm.rank == comm.size - 1 else 30 + 10 * comm.rank
        _, tgt = type3_points(rng, dim, 0, N, np.complex128)
        tgt = [t * (1 + comm.rank) for t in tgt]
    c = random_complex(rng, (2, M), np.complex128)
    plan = nufftmp.DistPlan(comm, 3, dim, n_trans=2, eps=1e-10, targets=targets)
    plan.setpts(*src, *_pad(dim), *tgt)
    f = plan.execute(c)
    assert f.shape == (2, tgt[0].size) and f.dtype == np.complex128
    ref = direct_type3(all_points(comm, src), np.concatenate(comm.allgather(c), axis=-1), tgt, 1)
    if tgt[0].size:
        assert rel_err(f, ref) < 1e-8
    assert plan.num_points_total == sum(comm.allgather(M))


def test_type3_shared_reduce_to_root_and_float32(comm):
    rng = np.random.default_rng(40 + comm.rank)
    src, _ = type3_points(rng, 2, 60, 0, np.complex64)
    _, tgt = type3_points(np.random.default_rng(4), 2, 0, 45, np.complex64)
    c = random_complex(rng, 60, np.complex64)
    # no dtype: float32 points make it complex64, as nufftmp.Plan
    plan = nufftmp.DistPlan(comm, 3, 2, eps=1e-5, reduction="reduce", root=comm.size - 1)
    plan.setpts(*src, None, *tgt)
    assert plan.dtype == np.complex64
    f = plan.execute(c)
    assert f.dtype == np.complex64
    ref = direct_type3(all_points(comm, src), np.concatenate(comm.allgather(c)), tgt, 1)
    if comm.rank == comm.size - 1:
        assert rel_err(f, ref) < 2e-4


def test_type3_errors_reach_every_rank(comm):
    if comm.size < 2:
        pytest.skip("needs two ranks")
    rng = np.random.default_rng(60 + comm.rank)
    src, _ = type3_points(rng, 2, 30, 0, np.complex128)
    _, tgt = type3_points(np.random.default_rng(6), 2, 0, 20, np.complex128)
    plan = nufftmp.DistPlan(comm, 3, 2, eps=1e-8)
    # A NaN target on rank 1, named as the caller named it (t, not the C++ order's s).
    bad = [t.copy() for t in tgt]
    if comm.rank == 1:
        bad[1][5] = np.nan
    with pytest.raises(nufftmp.NufftError) as e:
        plan.setpts(*src, None, *bad)
    if comm.rank == 1:
        assert isinstance(e.value, nufftmp.BadPointsError) and "t[5] = nan" in str(e.value)
    # Shared targets that differ between the ranks.
    moved = [t + comm.rank for t in tgt]
    with pytest.raises(nufftmp.NufftError, match="Shared"):
        plan.setpts(*src, None, *moved)
    with pytest.raises(RuntimeError, match="setpts"):
        plan.execute(np.zeros(30, np.complex128))
    # float32 points on one rank only: the precision differs, refused on every rank.
    p32 = nufftmp.DistPlan(comm, 3, 2, eps=1e-5)
    dt = np.float32 if comm.rank == 0 else np.float64
    with pytest.raises(nufftmp.NufftError, match="precision"):
        p32.setpts(*[x.astype(dt) for x in src], None, *[t.astype(dt) for t in tgt])
    # A Python-level check (a missing target) on rank 0 only.
    with pytest.raises(Exception) as e:
        plan.setpts(*src, None, tgt[0], None if comm.rank == 0 else tgt[1])
    if comm.rank == 0:
        assert isinstance(e.value, ValueError) and "`t` is missing" in str(e.value)
    else:
        assert isinstance(e.value, nufftmp.RemoteFailureError)
    # The plan works afterwards.
    plan.setpts(*src, None, *tgt)
    c = random_complex(rng, 30, np.complex128)
    ref = direct_type3(all_points(comm, src), np.concatenate(comm.allgather(c)), tgt, 1)
    assert rel_err(plan.execute(c), ref) < 1e-6


def test_dtype_follows_float32_points(comm):
    rng = np.random.default_rng(70 + comm.rank)
    pts = random_points(rng, 2, 50, np.complex64)
    c = random_complex(rng, 50, np.complex64)
    plan = nufftmp.DistPlan(comm, 1, (8, 6), eps=1e-5)
    plan.setpts(*pts)
    assert plan.dtype == np.complex64
    f = plan.execute(c)
    ref = direct_type1(all_points(comm, pts), np.concatenate(comm.allgather(c)), (8, 6), 1)
    assert f.dtype == np.complex64 and rel_err(f, ref) < 2e-4


@pytest.mark.gpu
@pytest.mark.parametrize("targets", ["shared", "scattered"])
def test_type3_device_arrays(comm, targets):
    # CuPy arrays on every rank's GPU (the GPU machine; skipped elsewhere).
    if not (nufftmp._core.HAS_CUDA and nufftmp.cuda_available()):
        pytest.skip("no CUDA engine or no GPU")
    cp = pytest.importorskip("cupy")
    ctx = nufftmp.Context(comm, backend="cuda")
    rng = np.random.default_rng(80 + comm.rank)
    src, tgt = type3_points(rng, 3, 300 + 50 * comm.rank, 120 + 20 * comm.rank, np.complex64)
    if targets == "shared":
        _, tgt = type3_points(np.random.default_rng(8), 3, 0, 150, np.complex64)
    c = random_complex(rng, (2, src[0].size), np.complex64)
    with cp.cuda.Device(ctx.device):
        plan = nufftmp.DistPlan(ctx, 3, 3, n_trans=2, eps=1e-5, targets=targets)
        plan.setpts(*[cp.asarray(a) for a in src + tgt])
        f = plan.execute(cp.asarray(c))
        assert isinstance(f, cp.ndarray) and plan.dtype == np.complex64
        f = cp.asnumpy(f)
    ref = direct_type3(all_points(comm, src), np.concatenate(comm.allgather(c), axis=-1), tgt, 1)
    assert rel_err(f, ref) < 2e-4
