"""M-TIP slicing and merging from Python (a thin layer over nufftmp's C++ M-TIP stages).

Conventions as nufftmp.Plan: a volume is a C-ordered (M, M, M) array whose axis 0 pairs with the
first coordinate (H), axis 1 with K, axis 2 with L, index i <-> lag/mode i - M // 2 (centred);
slice points are NUFFT coordinates in [-pi, pi)^3 (``slice_points`` makes them from detector
positions and orientations as the C++ library does). Host memory: CuPy arrays are accepted and
copied to the host (the C++ stages take host arrays); results come back as the input's kind.

  * Slicer(M, eps): the model's Fourier series at this rank's slice points (3D type 2, isign +1);
    no communication (the model is on every rank).
  * Merger(comm, M, ...): solves min ||W^1/2 (A ac - b)||^2 + lambda ||ac||^2 over every rank's
    points (A = slicing), with the Toeplitz-embedded normal operator; collective.

Volumes of the C++ apps' HDF5 files (``volume`` of nufftmp-synth; ``density``,
``autocorrelation``, ``intensity``, ``support`` of nufftmp-mtip) are stored x fastest, as
every C++ volume: data set dims [M, M, M] hold v[ix + M (iy + M iz)], so h5py (C order) reads
them as ``A[iz, iy, ix]``, with x the first coordinate (H of ``slice_points``). This module's
axis 0 is H, so the volume of a file is ``A.transpose()`` (the axes reversed; a view, no
copy; pass ``np.ascontiguousarray(A.transpose())`` where a contiguous array is wanted), and a
volume of this module goes to a file for the C++ apps as ``np.ascontiguousarray(ac.transpose())``:

    with h5py.File("run.h5") as h:                     # nufftmp-mtip --output run.h5
        ac = np.ascontiguousarray(h["autocorrelation"][...].transpose())
    s = Slicer(M); s.setpts(H, K, L); values = s.slice(ac.astype(complex))

The other data sets need no change: ``pixel_position_reciprocal`` [3, ny, nx] is
``pixel_positions_reciprocal``'s layout, ``orientations`` [n, 4] (w, x, y, z) and
``intensities`` [n, ny, nx] are image-major as ``slice_points`` orders its points.
"""

import numpy as np

from . import _arrays, _core
from ._errors import ShapeError
from ._plan import dtype_error
from ._dist import Context, agree


def _require_mtip():
    if not _core.HAS_MTIP:
        raise ImportError("this nufftmp was built without the M-TIP library (needs MPI and "
                          "HDF5): no nufftmp.mtip")


def _suffix(dtype):
    dt = np.dtype(dtype)
    if dt in (np.float32, np.complex64):
        return "F32", np.dtype(np.float32), np.dtype(np.complex64)
    if dt in (np.float64, np.complex128):
        return "F64", np.dtype(np.float64), np.dtype(np.complex128)
    raise TypeError(f"dtype {dt}: expected float32/complex64 or float64/complex128")


def _host(a, name, dtype):
    """(numpy array of dtype, contiguous; the input's adapter) for an input argument."""
    ad, a = _arrays.adapter(a, name)
    if ad.on_device:
        a = a.get() if hasattr(a, "get") else a.cpu().numpy()
    if a.dtype != dtype:
        raise dtype_error(name, a.dtype, dtype)
    return np.ascontiguousarray(a), ad


def _like(ad, result):
    if ad is _arrays.CupyArrays:
        import cupy
        return cupy.asarray(result)
    if ad is _arrays.TorchArrays:
        import torch
        return torch.from_numpy(result).cuda()
    return result


def _reversed_ptrs(H, K, L):
    # C++ volumes are x fastest: the Python axis 0 (H) is the C++ z.
    return L.ctypes.data, K.ctypes.data, H.ctypes.data


def _points(H, K, L, real):
    H, ad = _host(H, "H", real)
    K, _ = _host(K, "K", real)
    L, _ = _host(L, "L", real)
    if not (H.ndim == K.ndim == L.ndim == 1 and H.shape == K.shape == L.shape):
        raise ValueError(f"H, K, L must be vectors of one length, got {H.shape}, {K.shape}, "
                         f"{L.shape}")
    return H, K, L, ad


def slice_points(positions, orientations, scale, dtype=np.float64):
    """NUFFT coordinates (H, K, L) of the slices of `orientations` ((n, 4) quaternions w, x, y,
    z) through the detector `positions` ((3, npix) or (3, ny, nx), 1/Angstrom), scaled by
    `scale`; each of length n * npix, orientation-major."""
    _require_mtip()
    suffix, real, _ = _suffix(dtype)
    pos = np.ascontiguousarray(positions, dtype=np.float64).reshape(3, -1)
    q = np.ascontiguousarray(orientations, dtype=np.float64).reshape(-1, 4)
    npix, n = pos.shape[1], q.shape[0]
    x, y, z = (np.empty(n * npix, dtype=real) for _ in range(3))
    getattr(_core, "slice_points_" + suffix)(pos.ctypes.data, npix, q.ctypes.data, n,
                                             float(scale), x.ctypes.data, y.ctypes.data,
                                             z.ctypes.data)
    return x, y, z


def pixel_positions_reciprocal(nx=64, ny=64, pixel_size=1e-4, distance=0.1, wavelength=2.0):
    """Reciprocal positions (3, ny, nx) of a flat detector normal to the beam (1/Angstrom)."""
    _require_mtip()
    d = _core.Detector()
    d.nx, d.ny, d.pixel_size, d.distance, d.wavelength = nx, ny, pixel_size, distance, wavelength
    return _core.pixel_positions_reciprocal(d).reshape(3, ny, nx)


def reciprocal_scale(positions):
    """The scale taking reciprocal positions into (-pi, pi)^3 under any rotation."""
    _require_mtip()
    pos = np.ascontiguousarray(positions, dtype=np.float64).reshape(3, -1)
    return _core.reciprocal_scale(pos.ctypes.data, pos.shape[1])


def reference_orientations(n):
    """A deterministic near-uniform set of n orientations, (n, 4) quaternions (w, x, y, z)."""
    _require_mtip()
    return _core.reference_orientations(int(n)).reshape(-1, 4)


class Slicer:
    """The model (M, M, M) complex, centred) evaluated at this rank's slice points."""

    def __init__(self, M, eps=1e-6, dtype="complex128", **kwargs):
        _require_mtip()
        from ._options import make_options
        self._suffix, self._real, self._complex = _suffix(dtype)
        opts, _, _ = make_options(kwargs)
        self.M = int(M)
        self._inner = getattr(_core, "Slicer" + self._suffix)(self.M, float(eps), opts)
        self._n = None

    def setpts(self, H, K, L):
        H, K, L, _ = _points(H, K, L, self._real)
        self._inner.set_points(H.shape[0], *_reversed_ptrs(H, K, L))
        self._n = H.shape[0]
        self._keep = (H, K, L)

    def slice(self, model):
        """Values of the model's Fourier series at the points (complex, length n)."""
        if self._n is None:
            raise RuntimeError("setpts must be called before slice")
        model, ad = _host(model, "model", self._complex)
        if model.shape != (self.M,) * 3:
            raise ShapeError(f"Argument `model` must be of shape {(self.M,) * 3}, got "
                             f"{model.shape}")
        values = np.empty(self._n, dtype=self._complex)
        self._inner.slice(model.ctypes.data, values.ctypes.data)
        return _like(ad, values)


class Merger:
    """Merging over every rank's slices (collective over comm, an mpi4py communicator or a
    nufftmp Context). lambda_, max_iter, tol, nufft_tol, precondition: MergeOptions."""

    def __init__(self, comm, M, lambda_=1e-3, max_iter=200, tol=1e-6, nufft_tol=0.0,
                 precondition=False, dtype="float64", **kwargs):
        _require_mtip()
        from ._options import make_options
        self._context = comm if isinstance(comm, Context) else Context(
            comm, kwargs.pop("backend", "auto"), kwargs.pop("gpu_device_id", -1))
        self._comm = self._context.comm

        def check():
            suffix, real, _ = _suffix(dtype)
            mo = _core.MergeOptions()
            mo.lambda_, mo.max_iter, mo.tol = float(lambda_), int(max_iter), float(tol)
            mo.nufft_tol, mo.precondition = float(nufft_tol), bool(precondition)
            return suffix, real, mo, make_options(kwargs)[0]

        self._suffix, self._real, mo, opts = agree(self._comm, check)
        self.M = int(M)
        self._inner = getattr(_core, "Merger" + self._suffix)(self._context._ctx, self.M, mo, opts)
        self._n = None

    def setpts(self, H, K, L, weights=None):
        """Collective: this rank's slice points and optional weights (default 1)."""
        def check():
            H_, K_, L_, _ = _points(H, K, L, self._real)
            w = None
            if weights is not None:
                w, _ = _host(weights, "weights", self._real)
                if w.shape != H_.shape:
                    raise ShapeError(f"Argument `weights` must be of shape {H_.shape}")
            return H_, K_, L_, w
        H_, K_, L_, w = agree(self._comm, check)
        self._inner.set_points(H_.shape[0], *_reversed_ptrs(H_, K_, L_),
                               0 if w is None else w.ctypes.data)
        self._n = H_.shape[0]
        self._keep = (H_, K_, L_, w)

    def solve(self, data, start=None):
        """Collective: (ac, report) with ac the real (M, M, M) solution (float64, centred) and
        report the C++ MergeReport as a dict. data: this rank's values at its points."""
        if self._n is None:
            raise RuntimeError("setpts must be called before solve")
        shape = (self.M,) * 3

        def check():
            d, ad = _host(data, "data", self._real)
            if d.shape != (self._n,):
                raise ShapeError(f"Argument `data` must be of shape {(self._n,)}, got {d.shape}")
            s = None
            if start is not None:
                s, _ = _host(start, "start", np.dtype(np.float64))
                if s.shape != shape:
                    raise ShapeError(f"Argument `start` must be of shape {shape}")
            return d, s, ad
        d, s, ad = agree(self._comm, check)
        ac = np.empty(shape, dtype=np.float64)
        report = self._inner.solve(d.ctypes.data, 0 if s is None else s.ctypes.data,
                                   ac.ctypes.data, ac.size)
        return _like(ad, ac), report

    @property
    def weight_sum(self):
        return self._inner.weight_sum
