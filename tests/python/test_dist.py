"""DistPlan over mpi4py: run as `mpirun -np 2 python -m pytest -m mpi tests/python` (CTest
does). Every rank checks its own part against a single-device plan / direct sum it computes
itself. On one rank (plain pytest) the tests run too, as a one-rank communicator."""

import numpy as np
import pytest

import nufftmp
from conftest import direct_type1, direct_type2, random_complex, random_points, rel_err

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
    plan = nufftmp.DistPlan(comm, 1, (8,), eps=1e-8)
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
    with pytest.raises(nufftmp.NufftError):
        nufftmp.DistPlan(comm, 1, (8 + comm.rank,))
