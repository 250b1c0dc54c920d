"""nufftmp.DistPlan: one transform computed by all ranks of an mpi4py communicator, with the C++
DistPlan's semantics (include/nufftmp/dist.hpp):

  * type 1: each rank passes its own points and strengths; the modes are summed over the ranks,
    on every rank (reduction='allreduce', default) or on `root` only ('reduce');
  * type 2: the modes are read on `root` (other ranks may pass None) and broadcast, unless
    modes_on_all=True; each rank gets the values at its own points;
  * type 3: each rank passes its own sources and strengths; targets='shared' (the same
    targets on every rank): the values are summed over the ranks as type 1's modes;
    targets='scattered' (each rank its own targets): every rank gets every rank's sources and
    computes its own targets' values. Every rank's plan is sized for all ranks' points.

Every method is collective. An error on any rank is raised on every rank: the argument checks
made here are agreed over the communicator before the C++ collective starts (the failing rank
raises its own error, the others nufftmp.RemoteFailureError naming it), and the C++ layer agrees
on status before each of its collectives.

Arrays: numpy, or device arrays on the rank's GPU (the context binds each rank to one) used in
place. Shapes and dtypes follow nufftmp.Plan (FINUFFT's conventions).
"""

import warnings

import numpy as np

from . import _arrays, _core
from ._errors import NufftError, RemoteFailureError, python_axis_names
from ._options import make_options
from ._plan import (_NAMES, _TARGET_NAMES, PlanInfo, _StreamOrder, batch_of, check_device,
                    check_n_modes, checked_out, checked_points, clamp_eps, complex_dtype,
                    dtype_error, precision_of_points)


def _require_dist():
    if not _core.HAS_DIST:
        raise ImportError("this nufftmp was built without MPI (NUFFTMP_MPI=OFF): no DistPlan")


def _handle(comm):
    from mpi4py import MPI
    h = getattr(comm, "handle", None)
    return int(h) if h is not None else int(MPI._handleof(comm))


def agree(comm, fn):
    """Runs fn() on every rank of comm; if it raised on any rank, raises on every rank (the
    failing rank its own exception, the others RemoteFailureError with the lowest failing
    rank's message). Returns fn's result."""
    err = None
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - every failure must reach the other ranks
        err = e
    failed = comm.allreduce(0 if err is None else 1)
    if failed:
        msgs = comm.allgather(None if err is None else f"{type(err).__name__}: {err}")
        if err is not None:
            raise err
        rank = next(r for r, m in enumerate(msgs) if m is not None)
        raise RemoteFailureError(f"rank {rank} failed: {msgs[rank]}")
    return result


_COMM = {"auto": "Auto", "nccl": "Nccl", "mpi": "Mpi", "mpi-host": "MpiHost", "mpihost": "MpiHost"}


class Context:
    """An MPI communicator with each rank bound to a GPU (or the CPU engine), its stream and
    NCCL communicator: what DistPlans of the same ranks share. Collective.

    backend: 'auto' (CUDA when every rank sees a GPU), 'cpu' or 'cuda'; device: -1 = node-local
    rank modulo the visible GPUs; comm_backend: 'auto', 'nccl', 'mpi', 'mpi-host'."""

    def __init__(self, comm, backend="auto", device=-1, comm_backend="auto"):
        _require_dist()
        self.comm = comm

        def opts():
            o = _core.ContextOptions()
            o.backend = getattr(_core.Backend, {"auto": "Auto", "cpu": "Cpu",
                                                "cuda": "Cuda"}[str(backend).lower()])
            o.device = int(device)
            o.comm = getattr(_core.CommBackend, _COMM[str(comm_backend).lower()])
            return o
        try:
            o = agree(comm, opts)
        except KeyError as e:
            raise ValueError(f"unknown backend or comm_backend {e}") from None
        self._ctx = _core.Context(_handle(comm), o)

    @property
    def rank(self):
        return self._ctx.rank

    @property
    def size(self):
        return self._ctx.size

    @property
    def device(self):
        return self._ctx.device

    @property
    def backend(self):
        return _core.backend_name(self._ctx.backend)

    def binding(self):
        return self._ctx.binding()


class DistPlan(PlanInfo):
    """A distributed NUFFT plan (collective over comm, an mpi4py communicator or a Context).

    Arguments as nufftmp.Plan (n_modes: the modes for types 1 and 2, the dimension for type
    3), plus reduction ('allreduce' or 'reduce'), root, modes_on_all, reduce_batch, rebalance
    and targets ('shared' or 'scattered', type 3) of nufftmp::dist::DistOptions, and backend /
    gpu_device_id / comm_backend for the Context made when comm is a communicator. Must agree
    on all ranks.

    dtype None follows nufftmp.Plan's rule: complex64 when the first points are float32, else
    complex128. The C++ plan is then made at the first setpts (collective like it), so its
    cross-rank comparison of the parameters (and of the precision: every rank's points must
    be of one dtype, an empty share too) reports a mismatch there; the parameters' own checks
    still run here. With a dtype the plan is made here.
    """

    def __init__(self, comm, nufft_type, n_modes, n_trans=1, eps=1e-6, isign=None,
                 dtype=None, reduction="allreduce", root=0, modes_on_all=False,
                 reduce_batch=0, rebalance=False, targets="shared", comm_backend="auto",
                 **kwargs):
        _require_dist()
        self._inner = None
        if isinstance(comm, Context):
            self._context = comm
        else:
            backend = kwargs.pop("backend", "auto")
            device = kwargs.pop("gpu_device_id", -1)
            self._context = Context(comm, backend, device, comm_backend)
        self._comm = self._context.comm

        def check():
            if nufft_type not in (1, 2, 3):
                raise ValueError(f"nufft_type = {nufft_type!r} (must be 1, 2 or 3)")
            dt = None if dtype is None else complex_dtype(dtype)
            dim, modes = check_n_modes(nufft_type, n_modes)
            if int(n_trans) < 1:
                raise ValueError(f"n_trans = {n_trans!r} (must be an integer >= 1)")
            sign = -1 if (nufft_type == 2 if isign is None else isign < 0) else 1
            opts, _, _ = make_options(kwargs, stacklevel=5)
            d = _core.DistOptions()
            try:
                d.reduction = {"allreduce": _core.Reduction.AllReduce,
                               "reduce": _core.Reduction.Reduce}[str(reduction).lower()]
                d.targets = {"shared": _core.Type3Targets.Shared,
                             "scattered": _core.Type3Targets.Scattered}[str(targets).lower()]
            except KeyError as e:
                raise ValueError(f"reduction = {reduction!r}, targets = {targets!r}: unknown "
                                 f"value {e} (reduction: 'allreduce' or 'reduce'; targets: "
                                 f"'shared' or 'scattered')") from None
            d.root = int(root)
            d.modes_on_all = bool(modes_on_all)
            d.reduce_batch = int(reduce_batch)
            d.rebalance = bool(rebalance)
            tol = clamp_eps(eps, stacklevel=5)
            if dt is None:
                # The C++ plan comes at setpts: its parameter checks run now (one rank's
                # failure raised on every rank by agree).
                shape = dim if nufft_type == 3 else list(modes[::-1])
                _core.validate_plan_F64(int(nufft_type), shape, sign, int(n_trans), tol, opts)
            return dt, dim, modes, sign, opts, d, tol

        dt, self._dim, self._n_modes, self._isign, self._opts, self._dopts, self._tol = agree(
            self._comm, check)
        self._type = int(nufft_type)
        self._n_trans = int(n_trans)
        self._root = self._dopts.root
        self._modes_on_all = self._dopts.modes_on_all
        self._on_device = self._context._ctx.backend == _core.Backend.Cuda
        self._device = self._context.device
        self._stream = self._context._ctx.stream
        self._M = None
        self._points = None
        self._set_dtype(np.dtype(np.complex128) if dt is None else dt)
        if dt is not None:
            self._make_inner()

    def _make_inner(self):
        """The C++ DistPlan (collective: an error, a parameter or precision differing between
        ranks included, is raised on every rank)."""
        cls = getattr(_core, "DistPlan" + self._suffix)
        self._inner = cls(self._context._ctx, self._type, self._shape_arg(), self._isign,
                          self._n_trans, self._tol, self._opts, self._dopts)

    @property
    def context(self):
        return self._context

    @property
    def num_points_total(self):
        return self._inner.num_points_total if self._inner is not None else 0

    def last_timings(self):
        """This rank's times of the last execute (ms): compute_ms, comm_ms, total_ms."""
        if self._inner is None:  # no C++ plan yet (dtype None, before the first setpts)
            return {"compute_ms": 0.0, "comm_ms": 0.0, "total_ms": 0.0}
        return self._inner.last_timings()

    def _check_kind(self, ad, named_arrays):
        if ad.on_device and not self._on_device:
            raise TypeError("Device arrays were given, but this rank runs the CPU engine")
        check_device(ad, named_arrays, self._device)

    def setpts(self, x=None, y=None, z=None, s=None, t=None, u=None):
        """Collective: this rank's points (M_local may be 0); for type 3 this rank's sources
        and the targets s (t, u): the same on every rank with targets='shared', this rank's
        own with 'scattered' (N_local may be 0)."""
        pad = 3 - self._dim

        def check():
            if self._inner is None and x is not None:
                self._set_dtype(precision_of_points(x))
            ad, coords, M = checked_points(self._dim, (x, y, z), self._real_dtype, stacklevel=5)
            self._check_kind(ad, zip(_NAMES, coords))
            tg, N = [], 0
            if self._type == 3:
                adt, tg, N = checked_points(self._dim, (s, t, u), self._real_dtype,
                                            stacklevel=5, names=_TARGET_NAMES)
                if adt.on_device != ad.on_device:
                    raise TypeError(f"Argument `s` is in {'device' if adt.on_device else 'host'}"
                                    f" memory, `x` is not")
                self._check_kind(adt, zip(_TARGET_NAMES, tg))
            elif any(v is not None for v in (s, t, u)):
                raise ValueError("Arguments `s`, `t`, `u` are the targets of a type 3 plan")
            return ad, coords, M, tg, N

        ad, coords, M, tg, N = agree(self._comm, check)
        if self._inner is None:
            self._make_inner()
        ptrs = [ad.ptr(a) for a in reversed(coords)] + [0] * pad
        if self._type == 3:
            ptrs += [N] + [ad.ptr(a) for a in reversed(tg)] + [0] * pad
        self._M = None  # no points until the C++ call succeeds (on every rank alike)
        try:
            if ad.on_device:
                with _StreamOrder(self, ad, coords[0]):
                    self._inner.set_points(M, *ptrs)
            else:
                self._inner.set_points_host(M, *ptrs)
        except NufftError as e:
            raise python_axis_names(e, self._dim)
        self._points, self._targets, self._M = coords, tg, M
        self._set_core_shapes(M, N)

    def execute(self, data, out=None):
        """Collective. Type 1: data = this rank's strengths, returns the modes (summed over the
        ranks; with reduction='reduce' meaningful on root only). Type 2: data = the modes (read
        on root unless modes_on_all; None elsewhere), returns this rank's values. Type 3: data
        = this rank's strengths (n_trans, M_local); returns the values at the targets (n_trans,
        N): with targets='shared' summed over the ranks like type 1's modes, with 'scattered'
        this rank's own targets' values (every rank's sources included)."""
        if self._M is None:
            raise RuntimeError("setpts must be called before execute")

        def check():
            nonlocal data, out
            needs_data = self._type != 2 or self._modes_on_all or self._comm.rank == self._root
            if data is None and not needs_data:
                ad = _arrays.adapter(out, "out")[0] if out is not None else (
                    _arrays.adapter(self._points[0], "x")[0])
                d_ptr = 0
                batch = (self._n_trans,) if self._n_trans > 1 else ()
                src = self._points[0]
            else:
                ad, data = _arrays.adapter(data, "data")
                self._check_kind(ad, [("data", data)])
                if ad.dtype(data) != self._dtype:
                    raise dtype_error("data", ad.dtype(data), self._dtype)
                batch = batch_of(_arrays.shape_of(data), self._core_in, self._n_trans, "data")
                if not ad.contiguous(data):
                    warnings.warn("Argument `data` does not satisfy the following requirement: "
                                  "C. Copying array", stacklevel=4)
                    data = ad.make_contiguous(data)
                d_ptr = ad.ptr(data)
                src = data
            if out is None:
                out = ad.empty(src, batch + self._core_out, self._dtype)
            else:
                out = checked_out(ad, out, self._core_out, self._n_trans, self._dtype,
                                  self._device)
            return ad, d_ptr, src

        ad, d_ptr, src = agree(self._comm, check)
        o_ptr = ad.ptr(out)
        c, f = (o_ptr, d_ptr) if self._type == 2 else (d_ptr, o_ptr)
        if ad.on_device:
            with _StreamOrder(self, ad, src):
                self._inner.execute(c, f)
        else:
            self._inner.execute_host(c, f)
        return out
