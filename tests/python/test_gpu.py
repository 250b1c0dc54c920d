"""CuPy and PyTorch device arrays on the CUDA engine, in place (label `gpu`: skipped without a
GPU, CuPy/PyTorch or a CUDA build). Results are compared with numpy direct sums on the host."""

import numpy as np
import pytest

import nufftmp
from conftest import MODES, direct_type1, direct_type2, random_complex, random_points, rel_err

pytestmark = pytest.mark.gpu
if not (nufftmp._core.HAS_CUDA and nufftmp.cuda_available()):
    pytest.skip("no CUDA engine or no GPU", allow_module_level=True)


def _lib(name):
    return pytest.importorskip(name)


class Lib:
    """to_device / to_host / is_device_array for one array library."""

    def __init__(self, name):
        self.name = name
        self.m = _lib(name)

    def dev(self, a):
        if self.name == "cupy":
            return self.m.asarray(a)
        return self.m.from_numpy(np.ascontiguousarray(a)).cuda()

    def host(self, a):
        return self.m.asnumpy(a) if self.name == "cupy" else a.cpu().numpy()

    def is_dev(self, a):
        if self.name == "cupy":
            return isinstance(a, self.m.ndarray)
        return isinstance(a, self.m.Tensor) and a.is_cuda


@pytest.fixture(params=["cupy", "torch"])
def lib(request):
    return Lib(request.param)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("nufft_type", [1, 2])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_device_arrays_in_place(rng, lib, dim, nufft_type, dtype):
    eps, bound = (1e-5, 2e-4) if dtype == np.complex64 else (1e-10, 1e-8)
    n_modes, M, nt = MODES[dim], 400, 2
    pts = random_points(rng, dim, M, dtype)
    shape_in = (nt, M) if nufft_type == 1 else (nt,) + n_modes
    data = random_complex(rng, shape_in, dtype)
    plan = nufftmp.Plan(nufft_type, n_modes, n_trans=nt, eps=eps, dtype=dtype)
    plan.setpts(*[lib.dev(p) for p in pts])
    assert plan.backend == "cuda"
    out = plan.execute(lib.dev(data))
    assert lib.is_dev(out)
    ref = (direct_type1(pts, data, n_modes, 1) if nufft_type == 1 else direct_type2(pts, data, -1))
    assert rel_err(lib.host(out), ref) < bound
    # out= on the device is filled and returned
    out2 = lib.dev(np.zeros(tuple(out.shape), dtype))
    assert plan.execute(lib.dev(data), out=out2) is out2
    assert rel_err(lib.host(out2), ref) < bound


def test_adjoint_on_device(rng, lib):
    pts = random_points(rng, 2, 300, np.complex128)
    plan = nufftmp.Plan(1, (10, 8), eps=1e-10)
    plan.setpts(*[lib.dev(p) for p in pts])
    f = random_complex(rng, (10, 8), np.complex128)
    c = plan.execute_adjoint(lib.dev(f))
    assert lib.is_dev(c)
    assert rel_err(lib.host(c), direct_type2(pts, f, -1)) < 1e-8


def test_cupy_streams(rng):
    cp = _lib("cupy")
    pts = random_points(rng, 3, 500, np.complex64)
    f = random_complex(rng, (6, 9, 5), np.complex64)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        plan = nufftmp.Plan(2, (6, 9, 5), eps=1e-5, dtype="complex64")
        plan.setpts(*[cp.asarray(p) for p in pts])
        c = plan.execute(cp.asarray(f))
    assert plan._stream == s.ptr
    s.synchronize()
    assert rel_err(cp.asnumpy(c), direct_type2(pts, f, -1)) < 2e-4
    # Called from another stream (the data made there just before): ordered by events.
    s2 = cp.cuda.Stream(non_blocking=True)
    with s2:
        fd = cp.asarray(f) * 2
        c2 = plan.execute(fd)
        c2 = c2 / 2  # on s2, after the plan's work
    s2.synchronize()
    assert rel_err(cp.asnumpy(c2), direct_type2(pts, f, -1)) < 2e-4
    # gpu_stream given explicitly
    p3 = nufftmp.Plan(2, (6, 9, 5), eps=1e-5, dtype="complex64", gpu_stream=s2)
    p3.setpts(*[cp.asarray(p) for p in pts])
    assert p3._stream == s2.ptr


def test_torch_stream(rng):
    torch = _lib("torch")
    pts = random_points(rng, 1, 200, np.complex128)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        plan = nufftmp.Plan(1, (16,), eps=1e-10)
        plan.setpts(torch.from_numpy(pts[0]).cuda())
        c = random_complex(rng, 200, np.complex128)
        f = plan.execute(torch.from_numpy(c).cuda())
    s.synchronize()
    assert plan._stream == s.cuda_stream
    assert rel_err(f.cpu().numpy(), direct_type1(pts, c, (16,), 1)) < 1e-8


def test_numpy_on_a_cuda_plan(rng):
    pts = random_points(rng, 2, 300, np.complex128)
    c = random_complex(rng, 300, np.complex128)
    plan = nufftmp.Plan(1, (9, 7), eps=1e-10, backend="cuda")
    assert plan.backend == "cuda"
    plan.setpts(*pts)
    f = plan.execute(c)
    assert isinstance(f, np.ndarray)
    assert rel_err(f, direct_type1(pts, c, (9, 7), 1)) < 1e-8


def test_cuda_array_interface_and_dlpack_objects(rng):
    cp = _lib("cupy")

    class CAI:  # e.g. Numba / PyCUDA arrays: only the interface
        def __init__(self, a):
            self.a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    class DL:  # e.g. JAX arrays: only DLPack
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    pts = random_points(rng, 1, 100, np.complex128)
    f = random_complex(rng, 12, np.complex128)
    plan = nufftmp.Plan(2, (12,), eps=1e-10)
    plan.setpts(CAI(cp.asarray(pts[0])))
    out = cp.zeros(100, np.complex128)
    res = plan.execute(CAI(cp.asarray(f)), out=CAI(out))
    cp.cuda.Device().synchronize()
    assert rel_err(cp.asnumpy(out), direct_type2(pts, f, -1)) < 1e-8
    assert isinstance(res, CAI)
    res = plan.execute(DL(cp.asarray(f)))
    assert isinstance(res, cp.ndarray)
    assert rel_err(cp.asnumpy(res), direct_type2(pts, f, -1)) < 1e-8


def test_device_arrays_on_a_cpu_plan_are_refused(rng):
    cp = _lib("cupy")
    plan = nufftmp.Plan(2, (8,), backend="cpu")
    with pytest.raises(TypeError, match="CPU engine"):
        plan.setpts(cp.zeros(5))
    plan.setpts(np.zeros(5))
    with pytest.raises(TypeError, match="CPU engine"):
        plan.execute(cp.zeros(8, np.complex128))


def test_wrong_dtype_on_device(rng):
    cp = _lib("cupy")
    plan = nufftmp.Plan(1, (8,), dtype="complex64")
    with pytest.raises(TypeError, match="float64 was given, but float32"):
        plan.setpts(cp.zeros(5))
