"""nufftmp: nonuniform FFTs on GPUs, across GPUs with MPI, and on CPUs.

The interface of FINUFFT's and cuFINUFFT's Python packages: code written for either runs
after ``import nufftmp as finufft`` or ``import nufftmp as cufinufft``. numpy arrays run on the
CPU engine (or on a CUDA plan through copies, with backend="cuda"); CuPy arrays, PyTorch CUDA
tensors and ``__cuda_array_interface__`` / DLPack device arrays run on the CUDA engine in place.

    import numpy as np, nufftmp
    x = np.random.uniform(-np.pi, np.pi, 10000)
    c = np.random.randn(10000) + 1j * np.random.randn(10000)
    f = nufftmp.nufft1d1(x, c, 64, eps=1e-9)            # 64 modes, k = -32 ... 31

    plan = nufftmp.Plan(2, (64, 32), n_trans=4, eps=1e-6)
    plan.setpts(x, np.random.uniform(-np.pi, np.pi, 10000))
    values = plan.execute(np.ones((4, 64, 32), complex))  # shape (4, 10000)

Distributed over mpi4py: ``nufftmp.DistPlan(comm, ...)``; M-TIP slicing and merging:
``nufftmp.mtip``.
"""

from . import _core
from ._errors import (BadPointsError, InvalidArgumentError, NotAvailableError, NufftError,
                      OutOfMemoryError, RemoteFailureError, ShapeError)
from ._plan import Plan
from ._simple import (nufft1d1, nufft1d2, nufft1d3, nufft2d1, nufft2d2, nufft2d3, nufft3d1,
                      nufft3d2, nufft3d3)
from ._dist import Context, DistPlan

Options = _core.Options
__version__ = "0.1.0"


def cuda_available():
    """True when this build has the CUDA engine and a GPU is visible."""
    return _core.cuda_available()


def cuda_device_count():
    return _core.cuda_device_count()


__all__ = ["Plan", "DistPlan", "Context", "Options", "nufft1d1", "nufft1d2", "nufft1d3",
           "nufft2d1", "nufft2d2", "nufft2d3", "nufft3d1", "nufft3d2", "nufft3d3",
           "NufftError", "InvalidArgumentError", "BadPointsError", "OutOfMemoryError",
           "NotAvailableError", "RemoteFailureError", "ShapeError", "cuda_available", "cuda_device_count"]
