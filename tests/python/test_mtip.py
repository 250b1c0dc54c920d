"""M-TIP slicing and merging from Python (nufftmp.mtip), on one or two ranks."""

import numpy as np
import pytest

import nufftmp
from conftest import direct_type2, rel_err

pytestmark = pytest.mark.mpi
MPI = pytest.importorskip("mpi4py.MPI")
if not nufftmp._core.HAS_MTIP:
    pytest.skip("nufftmp built without the M-TIP library", allow_module_level=True)
from nufftmp import mtip  # noqa: E402


def points(comm, n_orient, M_det=12):
    pos = mtip.pixel_positions_reciprocal(nx=M_det, ny=M_det, pixel_size=4e-4)
    scale = mtip.reciprocal_scale(pos)
    refs = mtip.reference_orientations(n_orient * comm.size)
    mine = refs[comm.rank::comm.size]
    return mtip.slice_points(pos, mine, scale), mine


def test_slice_points_lie_inside_the_box():
    comm = MPI.COMM_WORLD
    (H, K, L), q = points(comm, 3)
    assert H.shape == (3 * 144,) and q.shape == (3, 4)
    assert max(np.abs(H).max(), np.abs(K).max(), np.abs(L).max()) < np.pi


def test_slicer_is_the_type2_of_the_model(rng):
    comm = MPI.COMM_WORLD
    M = 8
    (H, K, L), _ = points(comm, 2)
    model = rng.standard_normal((M, M, M)) + 1j * rng.standard_normal((M, M, M))
    s = mtip.Slicer(M, eps=1e-10)
    s.setpts(H, K, L)
    values = s.slice(model)
    # axis 0 of the model pairs with H, as in nufftmp.Plan; isign +1, centred modes
    assert rel_err(values, direct_type2([H, K, L], model, +1)) < 1e-8


def test_merging_inverts_slicing():
    comm = MPI.COMM_WORLD
    M = 7
    (H, K, L), _ = points(comm, 40 // comm.size, M_det=16)
    # A real, even autocorrelation-like model: the data are its (real) slices.
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, M, M))
    truth = a + a[::-1, ::-1, ::-1]
    truth = comm.bcast(truth)
    data = direct_type2([H, K, L], truth, +1).real
    merger = mtip.Merger(comm, M, lambda_=1e-8, tol=1e-10, max_iter=500)
    merger.setpts(H, K, L)
    ac, report = merger.solve(data)
    assert ac.shape == (M, M, M)
    assert report["iterations"] > 0
    # The solution reproduces the data (the corners of the cube, outside every slice, are
    # not seen by the data; lambda keeps them small) and correlates with the truth.
    assert rel_err(direct_type2([H, K, L], ac, +1).real, data) < 1e-3
    assert np.corrcoef(ac.ravel(), truth.ravel())[0, 1] > 0.99


def test_the_example_runs(capsys):
    # examples/mtip_slicing_merging.py on this communicator (1 or 2 ranks): the merge gives
    # the model back from the slices.
    import pathlib
    import runpy
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "mtip_slicing_merging.py"
    runpy.run_path(str(path), run_name="__main__")
    if MPI.COMM_WORLD.rank == 0:
        line = capsys.readouterr().out.strip().splitlines()[-1]
        assert float(line.rsplit(" ", 1)[1]) > 0.999, line
