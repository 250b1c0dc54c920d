"""FINUFFT's and cuFINUFFT's options reach nufftmp's Options; nufftmp's own fields by name."""

import numpy as np
import pytest

import nufftmp
from nufftmp import _core
from nufftmp._options import make_options


def opts(**kw):
    return make_options(kw)[0]


def test_finufft_and_cufinufft_names():
    o = opts(modeord=1, upsampfac=1.25, nthreads=2, debug=0, maxbatchsize=3,
             gpu_device_id=1, gpu_binsizex=16, gpu_binsizey=8, gpu_maxsubprobsize=512,
             gpu_np=32, gpu_kerevalmeth=0)
    assert (o.modeord, o.upsampfac, o.nthreads, o.maxbatchsize) == (1, 1.25, 2, 3)
    assert o.gpu_device == 1 and list(o.binsize) == [16, 8, 0]
    assert o.maxsubprobsize == 512 and o.points_per_block == 32
    assert o.kernel_eval == _core.KernelEval.Direct
    assert opts(upsampfac=0.0).upsampfac == _core.Options().upsampfac  # FINUFFT's "choose"


@pytest.mark.parametrize("kw, method, sort", [
    ({"gpu_method": 1}, "GMSort", True),
    ({"gpu_method": 1, "gpu_sort": 0}, "GM", False),
    ({"gpu_method": 2}, "SM", True),
    ({"gpu_method": 3}, "Output", True),
    ({"gpu_method": 0}, "Auto", True),
])
def test_gpu_method(kw, method, sort):
    o = opts(**kw)
    assert o.method == getattr(_core.Method, method) and o.sort == sort


def test_nufftmp_fields_by_name_and_enum_strings():
    o = opts(backend="cuda", method="gm-sort", sort=False, autotune=True, binsize=(4, 4, 4))
    assert o.backend == _core.Backend.Cuda and o.method == _core.Method.GMSort
    assert not o.sort and o.autotune and list(o.binsize) == [4, 4, 4]
    assert opts(gpu_stream=12345).cuda_stream == 12345


def test_nthreads_is_honoured_on_the_cpu_engine(rng):
    x = rng.uniform(-np.pi, np.pi, 100)
    c = rng.standard_normal(100) + 0j
    f1 = nufftmp.nufft1d1(x, c, 16, nthreads=1, eps=1e-10)
    f2 = nufftmp.nufft1d1(x, c, 16, eps=1e-10)
    assert np.allclose(f1, f2, rtol=0, atol=1e-9 * np.abs(f2).max())


def test_backend_is_chosen_by_the_first_points():
    p = nufftmp.Plan(1, (8,))
    assert p.backend is None
    p.setpts(np.zeros(3))
    assert p.backend == "cpu"
    assert "type 1" in p.describe()
