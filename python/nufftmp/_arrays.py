"""Arrays where they live: one small adapter per array library.

An adapter answers, for arrays of its library, what the plans need: dtype (as a numpy dtype),
shape, C-contiguity, data address, device (-1 for host memory), the library's current CUDA
stream, and how to make a contiguous copy or an empty array of the same kind. numpy arrays are
host memory; CuPy arrays, PyTorch CUDA tensors and any object with ``__cuda_array_interface__``
are device memory, used in place (no copy). Objects that only offer DLPack are imported without
copying through CuPy or PyTorch, whichever is installed, and come back as that library's array.
"""

import sys

import numpy as np

from . import _core

# DLPack device types (dlpack.h): kDLCPU = 1, kDLCUDA = 2, kDLCUDAManaged = 13.
_DL_CPU, _DL_CUDA, _DL_CUDA_MANAGED = 1, 2, 13


class NumpyArrays:
    on_device = False

    @staticmethod
    def dtype(a):
        return a.dtype

    @staticmethod
    def contiguous(a):
        return a.flags.c_contiguous

    @staticmethod
    def writeable(a):
        return a.flags.writeable

    @staticmethod
    def ptr(a):
        return a.ctypes.data

    @staticmethod
    def device(a):
        return -1

    @staticmethod
    def make_contiguous(a):
        return np.ascontiguousarray(a)

    @staticmethod
    def empty(like, shape, dtype):
        return np.empty(shape, dtype=dtype)

    @staticmethod
    def current_stream(device):
        return None

    @staticmethod
    def current_stream_object(device):
        """The current stream as the library's object (kept alive by the plan), or None."""
        return None


class CupyArrays(NumpyArrays):
    on_device = True

    @staticmethod
    def writeable(a):
        return True

    @staticmethod
    def ptr(a):
        return a.data.ptr

    @staticmethod
    def device(a):
        return a.device.id

    @staticmethod
    def make_contiguous(a):
        import cupy
        with a.device:
            return cupy.ascontiguousarray(a)

    @staticmethod
    def empty(like, shape, dtype):
        import cupy
        with like.device:
            return cupy.empty(shape, dtype=dtype)

    @staticmethod
    def current_stream(device):
        import cupy
        with cupy.cuda.Device(device):
            return cupy.cuda.get_current_stream().ptr

    @staticmethod
    def current_stream_object(device):
        import cupy
        with cupy.cuda.Device(device):
            return cupy.cuda.get_current_stream()


def _torch_dtypes():
    import torch
    return {torch.float32: np.dtype(np.float32), torch.float64: np.dtype(np.float64),
            torch.complex64: np.dtype(np.complex64), torch.complex128: np.dtype(np.complex128),
            torch.float16: np.dtype(np.float16), torch.int32: np.dtype(np.int32),
            torch.int64: np.dtype(np.int64)}


class TorchArrays:
    """PyTorch CUDA tensors (CPU tensors are handled as numpy views of their memory)."""

    on_device = True
    _dtypes = None

    @classmethod
    def dtype(cls, a):
        if cls._dtypes is None:
            cls._dtypes = _torch_dtypes()
        return cls._dtypes.get(a.dtype, a.dtype)

    @staticmethod
    def contiguous(a):
        return a.is_contiguous()

    @staticmethod
    def writeable(a):
        return True

    @staticmethod
    def ptr(a):
        return a.data_ptr()

    @staticmethod
    def device(a):
        return a.device.index

    @staticmethod
    def make_contiguous(a):
        return a.contiguous()

    @staticmethod
    def empty(like, shape, dtype):
        import torch
        tdt = {np.dtype(np.complex64): torch.complex64, np.dtype(np.complex128): torch.complex128,
               np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}[np.dtype(dtype)]
        return torch.empty(shape, dtype=tdt, device=like.device)

    @staticmethod
    def current_stream(device):
        import torch
        return torch.cuda.current_stream(device).cuda_stream

    @staticmethod
    def current_stream_object(device):
        import torch
        return torch.cuda.current_stream(device)


class CudaArrayInterface:
    """Any object with __cuda_array_interface__ (Numba, PyCUDA, ...). Outputs of this kind are
    allocated with CuPy when it is installed; otherwise pass ``out``."""

    on_device = True

    @staticmethod
    def _cai(a):
        return a.__cuda_array_interface__

    @classmethod
    def dtype(cls, a):
        return np.dtype(cls._cai(a)["typestr"])

    @classmethod
    def contiguous(cls, a):
        cai = cls._cai(a)
        strides = cai.get("strides")
        if strides is None:
            return True
        itemsize = np.dtype(cai["typestr"]).itemsize
        expect = itemsize
        for n, s in zip(reversed(cai["shape"]), reversed(strides)):
            if n > 1 and s != expect:
                return False
            expect *= n
        return True

    @classmethod
    def writeable(cls, a):
        return not cls._cai(a)["data"][1]

    @classmethod
    def ptr(cls, a):
        return cls._cai(a)["data"][0]

    @classmethod
    def device(cls, a):
        return _core.pointer_device(cls.ptr(a))

    @staticmethod
    def make_contiguous(a):
        raise TypeError("a non-contiguous __cuda_array_interface__ array cannot be copied by "
                        "nufftmp; pass a C-contiguous array")

    @staticmethod
    def empty(like, shape, dtype):
        try:
            import cupy
        except ImportError:
            raise TypeError("nufftmp allocates outputs for __cuda_array_interface__ arrays with "
                            "CuPy, which is not installed: pass `out`") from None
        return cupy.empty(shape, dtype=dtype)

    @staticmethod
    def stream_of(a):
        """The stream the array's producer names (CAI v3), as a cudaStream_t value, or None."""
        s = a.__cuda_array_interface__.get("stream")
        if s is None:
            return None
        return 0 if s == 1 else s  # 1: the legacy default stream; 2: per-thread default

    @staticmethod
    def current_stream(device):
        return None

    @staticmethod
    def current_stream_object(device):
        return None


def _shape(a):
    return tuple(a.shape) if hasattr(a, "shape") else tuple(a.__cuda_array_interface__["shape"])


def adapter(a, name):
    """(adapter, array) for an array argument; the array may be replaced by an equivalent view
    (a PyTorch CPU tensor by a numpy view, a DLPack-only object by a CuPy/PyTorch array)."""
    t = type(a)
    if t is np.ndarray:
        return NumpyArrays, a
    mod = t.__module__
    if mod.startswith("cupy"):
        return CupyArrays, a
    if mod.startswith("torch"):
        if a.device.type == "cuda":
            return TorchArrays, a
        if a.device.type == "cpu":
            return NumpyArrays, a.numpy()
    if isinstance(a, np.ndarray):
        return NumpyArrays, a
    if hasattr(a, "__cuda_array_interface__"):
        return CudaArrayInterface, a
    if hasattr(a, "__dlpack_device__"):
        dev = a.__dlpack_device__()[0]
        if dev == _DL_CPU:
            return NumpyArrays, np.from_dlpack(a)
        if dev in (_DL_CUDA, _DL_CUDA_MANAGED):
            if "cupy" in sys.modules or _importable("cupy"):
                import cupy
                return CupyArrays, cupy.from_dlpack(a)
            if "torch" in sys.modules or _importable("torch"):
                import torch
                return TorchArrays, torch.from_dlpack(a)
    raise TypeError(f"Argument `{name}` must be an array (numpy, CuPy, PyTorch, or an object "
                    f"with __cuda_array_interface__ or __dlpack__), got {t.__name__}")


def _importable(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


def wrap_like(kind_array, result):
    """A PyTorch CPU tensor's result comes back as a tensor (sharing the numpy array's memory)."""
    t = type(kind_array)
    if t.__module__.startswith("torch") and kind_array.device.type == "cpu":
        import torch
        return torch.from_numpy(result)
    return result


shape_of = _shape
