"""nufftmp.Plan: FINUFFT's and cuFINUFFT's ``Plan`` on nufftmp's C++ plan.

Conventions (those of FINUFFT's and cuFINUFFT's Python packages):
  * ``n_modes = (N1, N2, N3)`` pairs N1 with ``x``, N2 with ``y``, N3 with ``z``; mode arrays are
    C-ordered numpy-style arrays of shape ``(N1, N2, N3)``, so ``f[k1, k2, k3]`` (shifted by
    N_i // 2 under modeord 0) is the coefficient of ``exp(isign i (k1 x + k2 y + k3 z))``.
    The C++ arrays are x fastest: the plan hands the C++ plan the modes and the coordinates in
    reverse order (N3, N2, N1 and z, y, x), which is the same memory without a copy.
  * Type 3 (``Plan(3, dim)``): sources x (y, z) of length M and targets s (t, u) of length N,
    any finite reals, given together to ``setpts(x, y, z, s, t, u)``; s pairs with x, t with
    y, u with z: ``f[k] = sum_j c[j] exp(isign i (s[k] x[j] + t[k] y[j] + u[k] z[j]))``,
    strengths ``(M,)`` -> values ``(N,)``. (Handed to the C++ plan reversed as well, which
    leaves every product s.x as it is.)
  * Batches: ``n_trans`` vectors stacked along leading axes (shape ``(n_trans, M)`` or
    ``(n_trans, N1, N2, N3)``); the output has the input's leading axes.
  * dtype ``complex64`` / ``complex128`` (``float32`` / ``float64`` accepted with a
    DeprecationWarning, like FINUFFT); coordinates of the matching real dtype; a wrong dtype
    is a TypeError, a wrong shape or size a ValueError.

Where the work runs: the plan picks its engine from the first points it is given, unless
``backend="cpu"`` / ``"cuda"`` says: host arrays (numpy) use the CPU engine, device arrays
(CuPy, PyTorch CUDA tensors, ``__cuda_array_interface__``) the CUDA engine on their device, in
place. A CUDA plan also takes host arrays (copied in and out). Device work is ordered on the
plan's stream, which is ``gpu_stream`` when given, else the array library's current stream
when the plan's engine is made; calls from another current stream are ordered against it with
events (no host synchronisation).
"""

import math
import numbers
import warnings

import numpy as np

from . import _arrays, _core
from ._errors import NufftError, ShapeError, python_axis_names
from ._options import make_options

# nufftmp's accepted tolerance range (common/plan_config.cpp): FINUFFT accepts any eps and
# delivers what it can, so eps outside it is clamped here with a warning rather than refused.
_TOL_MIN, _TOL_MAX = 1e-14, 1e-1


def complex_dtype(dtype):
    """complex64 / complex128 from a plan's dtype argument (FINUFFT's rules)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype {dtype!r}: expected complex64 or complex128") from None
    if dt in (np.float32, np.float64):
        to = np.dtype(np.complex64 if dt == np.float32 else np.complex128)
        warnings.warn(f"Real dtypes are deprecated; converting {dt} to {to}",
                      DeprecationWarning, stacklevel=3)
        dt = to
    if dt not in (np.complex64, np.complex128):
        raise TypeError(f"Expected complex64 or complex128, got dtype {dt}")
    return dt


def precision_of_points(x):
    """The complex dtype a plan made without a dtype argument takes from its first points:
    complex64 for float32 coordinates (cuFINUFFT's default precision), else complex128
    (FINUFFT's; coordinates of another dtype are then refused by the dtype check)."""
    ad, a = _arrays.adapter(x, "x")
    return np.dtype(np.complex64 if ad.dtype(a) == np.float32 else np.complex128)


def check_n_modes(nufft_type, n_modes_or_dim):
    """(dim, n_modes tuple) of a plan's second argument."""
    if nufft_type == 3:
        if not isinstance(n_modes_or_dim, numbers.Integral):
            raise ValueError("For a type 3 plan, n_modes_or_dim must be a single number, "
                             "the dimension")
        dim = int(n_modes_or_dim)
        n_modes = (1,) * dim
    else:
        if isinstance(n_modes_or_dim, numbers.Integral):
            n_modes = (int(n_modes_or_dim),)
        else:
            try:
                n_modes = tuple(n_modes_or_dim)
            except TypeError:
                raise ValueError(f"Invalid n_modes {n_modes_or_dim!r}") from None
            if not all(isinstance(n, numbers.Integral) for n in n_modes):
                raise ValueError(f"Invalid n_modes {n_modes_or_dim!r} (integers expected)")
            n_modes = tuple(int(n) for n in n_modes)
        dim = len(n_modes)
    if dim not in (1, 2, 3):
        raise ValueError(f"Only dimensions 1, 2, and 3 supported (got {dim})")
    if nufft_type != 3 and any(n < 1 for n in n_modes):
        raise ValueError(f"n_modes {n_modes}: every entry must be >= 1")
    return dim, n_modes


def clamp_eps(eps, stacklevel=3):
    try:
        eps = float(eps)
    except (TypeError, ValueError):
        raise TypeError(f"eps must be a number, got {eps!r}") from None
    if not eps > 0 or math.isinf(eps):
        raise ValueError(f"eps = {eps} (must be a positive tolerance)")
    if eps < _TOL_MIN or eps > _TOL_MAX:
        to = min(max(eps, _TOL_MIN), _TOL_MAX)
        warnings.warn(f"eps = {eps:g} is outside nufftmp's range [{_TOL_MIN:g}, {_TOL_MAX:g}]; "
                      f"using {to:g}", stacklevel=stacklevel)
        eps = to
    return eps


def dtype_error(name, given, expected):
    return TypeError(f"Argument `{name}` does not have the correct dtype: {given} was given, "
                     f"but {expected} was expected.")


_NAMES = ("x", "y", "z")
_TARGET_NAMES = ("s", "t", "u")


def checked_points(dim, given, real_dtype, stacklevel=4, names=_NAMES):
    """(adapter, coordinate arrays, M) of a setpts call: `dim` vectors of one length, of one
    memory kind and of the real dtype; non-contiguous ones copied with a warning."""
    for d in range(dim, 3):
        if given[d] is not None and _arrays.shape_of(given[d]) != (0,):
            raise ValueError(f"Plan dimension is {dim}, but `{names[d]}` was specified")
    kind, coords, M = None, [], None
    for d in range(dim):
        name = names[d]
        if given[d] is None:
            raise ValueError(f"Plan dimension is {dim}, but `{name}` is missing")
        ad, a = _arrays.adapter(given[d], name)
        if kind is None:
            kind = ad
        elif ad.on_device != kind.on_device:
            raise TypeError(f"Argument `{name}` is in {'device' if ad.on_device else 'host'} "
                            f"memory, `{names[0]}` is not")
        dt = ad.dtype(a)
        if dt != real_dtype:
            raise dtype_error(name, dt, real_dtype)
        shape = _arrays.shape_of(a)
        if len(shape) != 1:
            raise ShapeError(f"Argument `{name}` must be a vector")
        if M is None:
            M = shape[0]
        elif shape[0] != M:
            raise ShapeError(f"Argument `{name}` must be of shape {(M,)}, got {shape}")
        if not ad.contiguous(a):
            warnings.warn(f"Argument `{name}` does not satisfy the following requirement: C. "
                          f"Copying array (this may reduce performance)", stacklevel=stacklevel)
            a = ad.make_contiguous(a)
        coords.append(a)
    return kind, coords, M


_NONES = {0: (), 1: (None,), 2: (None, None)}


def plain_vectors(dim, a, b, c, real_dtype):
    """(a, b, c)[:dim] when they are what the C++ plan reads as it is (numpy vectors of one
    length, of real_dtype, C-contiguous) and the rest None; else None (the general checks
    then copy, or say what is wrong)."""
    if (type(a) is not np.ndarray or a.dtype != real_dtype or a.ndim != 1
            or not a.flags.c_contiguous):
        return None
    if dim == 1:
        return (a,) if b is None and c is None else None
    n = a.shape
    if (type(b) is not np.ndarray or b.dtype != real_dtype or b.shape != n
            or not b.flags.c_contiguous):
        return None
    if dim == 2:
        return (a, b) if c is None else None
    if (type(c) is not np.ndarray or c.dtype != real_dtype or c.shape != n
            or not c.flags.c_contiguous):
        return None
    return (a, b, c)


def check_device(ad, named_arrays, device):
    """Device arrays must be on the plan's device."""
    if ad.on_device:
        for name, a in named_arrays:
            if ad.device(a) != device:
                raise ValueError(f"Argument `{name}` is on device {ad.device(a)}, the plan on "
                                 f"device {device}")


def checked_out(ad, out, core_out, n_trans, dtype, device):
    """`out` of an execute: the kind of `data`, the plan's dtype, C-contiguous, writeable,
    n_trans vectors of shape core_out."""
    ado, out = _arrays.adapter(out, "out")
    if ado is not ad:
        raise TypeError(f"Argument `out` must be an array of the same kind as `data` "
                        f"({'device' if ad.on_device else 'host'} memory)")
    dt = ado.dtype(out)
    if dt != dtype:
        raise dtype_error("out", dt, dtype)
    if not ado.contiguous(out):
        raise TypeError("Argument `out` does not satisfy the following requirement: C")
    if not ado.writeable(out):
        raise TypeError("Argument `out` does not satisfy the following requirement: W")
    batch_of(_arrays.shape_of(out), core_out, n_trans, "out")
    check_device(ado, [("out", out)], device)
    return out


class PlanInfo:
    """The read-only properties FINUFFT's and cuFINUFFT's plans have, and the state both Plan and
    DistPlan derive from them the same way."""

    def _set_dtype(self, dt):
        self._dtype = dt
        self._real_dtype = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        self._suffix = "F32" if dt == np.complex64 else "F64"

    def _shape_arg(self):
        # The C++ plan's second argument: the modes reversed (x fastest), or type 3's dimension.
        return self._dim if self._type == 3 else list(self._n_modes[::-1])

    def _set_core_shapes(self, M, N):
        # The per-vector shapes of execute's input and output.
        if self._type == 1:
            self._core_in, self._core_out = (M,), self._n_modes
        elif self._type == 2:
            self._core_in, self._core_out = self._n_modes, (M,)
        else:
            self._core_in, self._core_out = (M,), (N,)

    @property
    def type(self):
        return self._type

    @property
    def dim(self):
        return self._dim

    @property
    def n_modes(self):
        return self._n_modes

    @property
    def n_trans(self):
        return self._n_trans

    @property
    def dtype(self):
        return self._dtype


def batch_of(shape, core, n_trans, name):
    """The leading (batch) axes of an argument whose trailing axes must be `core` and whose
    leading axes must hold n_trans vectors."""
    nd = len(core)
    if len(shape) >= nd and shape[len(shape) - nd:] == core:
        batch = shape[:len(shape) - nd]
        if math.prod(batch) == n_trans:
            return batch
    want = core if n_trans == 1 else (n_trans,) + core
    raise ShapeError(f"Argument `{name}` must be of shape {want}, got {shape}")


class Plan(PlanInfo):
    """A NUFFT plan with FINUFFT's and cuFINUFFT's Python interface.

    Args:
        nufft_type (int): 1 (nonuniform to uniform), 2 (uniform to nonuniform) or 3
            (nonuniform to nonuniform).
        n_modes_or_dim (int or tuple of ints): modes (N1,) / (N1, N2) / (N1, N2, N3) for types
            1 and 2; the dimension for type 3.
        n_trans (int): vectors transformed per execute.
        eps (float): requested relative accuracy.
        isign (int): sign of the exponent; default +1 for types 1 and 3, -1 for type 2.
        dtype: 'complex64' or 'complex128'. Default: complex128 (FINUFFT's), or complex64 when
            the first points given to setpts are float32 (cuFINUFFT's default precision).
        **kwargs: FINUFFT/cuFINUFFT options and nufftmp's Options fields (see nufftmp._options).
    """

    def __init__(self, nufft_type, n_modes_or_dim, n_trans=1, eps=1e-6, isign=None,
                 dtype=None, **kwargs):
        self._inner = None
        if nufft_type not in (1, 2, 3):
            raise ValueError(f"nufft_type = {nufft_type!r} (must be 1, 2 or 3)")
        # dtype None: FINUFFT's default complex128, or complex64 if the first points are float32
        # (cuFINUFFT's default precision), so code written for either runs unchanged.
        self._dtype_given = dtype is not None
        self._set_dtype(complex_dtype("complex128" if dtype is None else dtype))
        self._dim, self._n_modes = check_n_modes(nufft_type, n_modes_or_dim)
        if not isinstance(n_trans, numbers.Integral) or n_trans < 1:
            raise ValueError(f"n_trans = {n_trans!r} (must be an integer >= 1)")
        self._type = int(nufft_type)
        self._n_trans = int(n_trans)
        if isign is None:
            isign = -1 if nufft_type == 2 else 1
        self._isign = 1 if isign >= 0 else -1
        # The stream object the plan runs on is kept as long as the plan: the C++ plan frees its
        # buffers on that stream when it goes, and a CuPy stream destroyed first (a test's local
        # variables go in any order) made that free a use after destroy (a segfault on the
        # H200). Kept after _inner in __dict__, so the plan goes first.
        self._stream_owner = kwargs.get("gpu_stream")
        self._opts, self._fixed_device, self._fixed_stream = make_options(kwargs)
        self._eps_clamped = clamp_eps(eps)
        self._eps = float(eps)
        self._validate(stacklevel=3)
        self._M = None
        self._points = None
        self._adjoint = None
        self._device = -1
        self._stream = 0
        if self._opts.backend != _core.Backend.Auto:
            # The engine is named: make it now (on the named or current device and stream).
            on_device = self._opts.backend == _core.Backend.Cuda
            self._make_inner(on_device, self._opts.gpu_device if self._fixed_device else -1,
                             self._opts.cuda_stream)

    @property
    def isign(self):
        return self._isign

    @property
    def eps(self):
        return self._eps

    # ---- nufftmp's own ----
    @property
    def backend(self):
        """'cpu' or 'cuda' once the engine is chosen (construction or first setpts), else None."""
        if self._inner is None:
            return None
        return _core.backend_name(self._inner.backend)

    @property
    def inner(self):
        """The C++ plan (nufftmp._core.PlanF32/PlanF64) once made, for its queries."""
        return self._inner

    def describe(self):
        return self._inner.describe() if self._inner is not None else "(engine not chosen yet)"

    # ---- precision and engine ----
    def _validate(self, stacklevel):
        """The C++ plan's own checks (no engine made); sets the effective tolerance."""
        validate = getattr(_core, "validate_plan_" + self._suffix)
        self._tol, warning = validate(self._type, self._shape_arg(), self._isign,
                                      self._n_trans, self._eps_clamped, self._opts)
        if warning:
            warnings.warn("nufftmp: " + warning, stacklevel=stacklevel + 1)


    def _follow_points_precision(self, x):
        # Before the engine exists and without a dtype argument: float32 points mean complex64.
        if self._inner is None and not self._dtype_given and x is not None:
            dt = precision_of_points(x)
            if dt != self._dtype:
                self._set_dtype(dt)
                self._validate(stacklevel=4)

    def _make_inner(self, on_device, device, stream):
        o = self._opts
        o.backend = _core.Backend.Cuda if on_device else _core.Backend.Cpu
        if on_device:
            if device >= 0:
                o.gpu_device = device
            o.cuda_stream = stream
        cls = getattr(_core, "Plan" + self._suffix)
        self._inner = cls(self._type, self._shape_arg(), self._isign, self._n_trans, self._tol, o)
        self._on_device = on_device
        self._device = o.gpu_device if on_device else -1
        if on_device and self._device < 0:
            self._device = _current_device()
        self._stream = stream if on_device else 0
        # No bound methods of _inner are cached on the plan: each would hold the C++ plan past
        # _stream_owner when the plan's __dict__ goes, and the C++ plan frees its buffers on that
        # stream (a destroyed CuPy stream then: the segfault of test_cupy_streams on the H200).

    def _ensure_engine(self, ad, first):
        if self._inner is not None:
            if ad.on_device and not self._on_device:
                raise TypeError("this plan runs on the CPU engine (host arrays set its points, "
                                "or backend='cpu'); device arrays need a CUDA plan: make a new "
                                "Plan from device arrays, or pass backend='cuda'")
            return
        if ad.on_device:
            dev = ad.device(first)
            if self._fixed_device and self._opts.gpu_device != dev:
                raise ValueError(f"gpu_device_id = {self._opts.gpu_device}, but the points are "
                                 f"on device {dev}")
            if self._fixed_stream:
                stream = self._opts.cuda_stream
            else:
                stream = _caller_stream(ad, first, dev)
                stream = 0 if stream is None else stream
                self._stream_owner = ad.current_stream_object(dev)
            self._make_inner(True, dev, stream)
        else:
            self._make_inner(False, -1, 0)

    # ---- setpts ----
    def setpts(self, x=None, y=None, z=None, s=None, t=None, u=None):
        """Set the nonuniform points: x (and y, z in 2D, 3D), float arrays of length M, of the
        plan's real dtype; for type 3 also the targets s (and t, u), of length N, in the same
        kind of memory. The arrays are not copied (non-contiguous ones are, with a warning)."""
        # The per-call path of host points (engine made, numpy vectors as the C++ plan reads
        # them): a few attribute checks; anything else takes the general path below.
        if self._inner is not None and type(x) is np.ndarray:
            src = plain_vectors(self._dim, x, y, z, self._real_dtype)
            if src is not None:
                if self._type != 3:
                    if s is None and t is None and u is None:
                        return self._set_host(src, (), x.shape[0], 0)
                else:
                    tgt = plain_vectors(self._dim, s, t, u, self._real_dtype)
                    if tgt is not None:
                        return self._set_host(src, tgt, x.shape[0], s.shape[0])
        if x is None:
            raise ValueError("Argument `x` is required")
        self._follow_points_precision(x)
        ad0, coords, M = checked_points(self._dim, (x, y, z), self._real_dtype)
        targets, N = [], 0
        if self._type == 3:
            adt, targets, N = checked_points(self._dim, (s, t, u), self._real_dtype,
                                             names=_TARGET_NAMES)
            if adt.on_device != ad0.on_device:
                raise TypeError(f"Argument `s` is in {'device' if adt.on_device else 'host'} "
                                f"memory, `x` is not")
        elif any(v is not None for v in (s, t, u)):
            raise ValueError("Arguments `s`, `t`, `u` are the targets of a type 3 plan")
        self._ensure_engine(ad0, coords[0])
        if not ad0.on_device:
            return self._set_host(coords, targets, M, N)
        check_device(ad0, zip(_NAMES, coords), self._device)
        check_device(ad0, zip(_TARGET_NAMES, targets), self._device)
        pad = [0] * (3 - self._dim)
        ptrs = [ad0.ptr(a) for a in reversed(coords)] + pad
        if self._type == 3:
            ptrs += [N] + [ad0.ptr(a) for a in reversed(targets)] + pad
        # Until the C++ call succeeds the plan has no points: after a failed setpts (a NaN, a
        # grid beyond memory) execute asks for setpts instead of using half-replaced state.
        self._M = None
        try:
            with _StreamOrder(self, ad0, coords[0]):
                self._inner.set_points(M, *ptrs)
        except NufftError as e:
            raise python_axis_names(e, self._dim)
        self._points_set(coords, M, targets, N)

    def _set_host(self, coords, targets, M, N):
        """The C++ set_points of host arrays (the CPU engine's own, or copies for a CUDA plan)."""
        pad = _NONES[3 - self._dim]
        self._M = None  # as in setpts
        try:
            if self._type == 3:
                self._inner.set_points_host_arrays(*coords[::-1], *pad, *targets[::-1], *pad)
            else:
                self._inner.set_points_host_arrays(*coords[::-1], *pad)
        except NufftError as e:
            raise python_axis_names(e, self._dim)
        self._points_set(coords, M, targets, N)

    def _points_set(self, coords, M, targets, N):
        # The arrays are kept: an adjoint plan made later sets the same points.
        self._points = coords
        self._targets = targets
        self._M = M
        self._set_core_shapes(M, N)
        # The usual shape of `data`, checked by one comparison in the numpy path.
        self._full_batch = () if self._n_trans == 1 else (self._n_trans,)
        self._full_in = self._full_batch + self._core_in
        if self._adjoint is not None:
            self._set_adjoint_points()

    # ---- execute ----
    def execute(self, data, out=None):
        """Type 1: strengths (M,) or (n_trans, M) -> modes (N1, ...) or (n_trans, N1, ...);
        type 2: the reverse; type 3: strengths (M,) or (n_trans, M) at the sources -> values
        (N,) or (n_trans, N) at the targets. Returns `out` (allocated when None) of the kind
        of `data`."""
        if self._M is None:
            raise RuntimeError("setpts must be called before execute")
        if type(data) is np.ndarray and (out is None or type(out) is np.ndarray):
            return self._execute_numpy(data, out)
        given_data, given_out = data, out
        ad, data = _arrays.adapter(data, "data")
        if ad is _arrays.NumpyArrays:
            # A host array of another library (a PyTorch CPU tensor): its kind comes back.
            res = self._execute_numpy(data, None if out is None else _arrays.adapter(out, "out")[1])
            return given_out if given_out is not None else _arrays.wrap_like(given_data, res)
        self._ensure_engine(ad, data)
        dt = ad.dtype(data)
        if dt != self._dtype:
            raise dtype_error("data", dt, self._dtype)
        batch = batch_of(_arrays.shape_of(data), self._core_in, self._n_trans, "data")
        check_device(ad, [("data", data)], self._device)
        if not ad.contiguous(data):
            warnings.warn("Argument `data` does not satisfy the following requirement: C. "
                          "Copying array (this may reduce performance)", stacklevel=2)
            data = ad.make_contiguous(data)
        if out is None:
            out = ad.empty(data, batch + self._core_out, self._dtype)
        else:
            out = self._check_out(ad, out, self._core_out)
        if self._type == 2:
            c, f = ad.ptr(out), ad.ptr(data)
        else:
            c, f = ad.ptr(data), ad.ptr(out)
        with _StreamOrder(self, ad, data):
            self._inner.execute(c, f)
        return out

    def _execute_numpy(self, data, out):
        # The per-call path of small host problems: plain attribute checks, one binding call.
        if data.dtype != self._dtype:
            raise dtype_error("data", data.dtype, self._dtype)
        shape = data.shape
        if shape == self._full_in:
            batch = self._full_batch
        else:
            batch = batch_of(shape, self._core_in, self._n_trans, "data")
        if not data.flags.c_contiguous:
            warnings.warn("Argument `data` does not satisfy the following requirement: C. "
                          "Copying array (this may reduce performance)", stacklevel=3)
            data = np.ascontiguousarray(data)
        if out is None:
            out = np.empty(batch + self._core_out, self._dtype)
        elif not (out.dtype == self._dtype and out.flags.c_contiguous and out.flags.writeable
                  and out.shape == batch + self._core_out):
            out = self._check_out(_arrays.NumpyArrays, out, self._core_out)
        self._inner.execute_host_arrays(data, out)
        return out

    def _check_out(self, ad, out, core_out):
        return checked_out(ad, out, core_out, self._n_trans, self._dtype, self._device)

    def _set_adjoint_points(self):
        pad = [None] * (3 - self._dim)
        if self._type == 3:
            self._adjoint.setpts(*self._targets, *pad, *self._points, *pad)
        else:
            self._adjoint.setpts(*self._points)

    def execute_adjoint(self, data, out=None):
        """The adjoint of the planned transform on the same points (FINUFFT 2.5's
        execute_adjoint): for a type 1 plan, modes -> strengths (a type 2 with the opposite
        sign); for a type 2 plan, values -> modes; for a type 3 plan, values at the targets
        (N,) -> strengths at the sources (M,), c[j] = sum_k f[k] exp(-isign i s[k].x[j]) (a
        type 3 from the targets to the sources, planned at the first call)."""
        if self._M is None:
            raise RuntimeError("setpts must be called before execute_adjoint")
        if self._adjoint is None:
            adj = Plan.__new__(Plan)
            adj._inner = None  # first in __dict__: it goes before the stream it runs on
            adj.__dict__.update({k: v for k, v in self.__dict__.items()
                                 if k in ("_dtype", "_real_dtype", "_suffix", "_dim", "_n_modes",
                                          "_n_trans", "_tol", "_eps", "_eps_clamped",
                                          "_fixed_device", "_fixed_stream")})
            adj._dtype_given = True
            # Type 1 <-> type 2 on the same points; type 3's adjoint is a type 3 from the
            # targets back to the sources.
            adj._type = 3 if self._type == 3 else 3 - self._type
            adj._isign = -self._isign
            adj._opts = _copy_options(self._opts)
            adj._M = None
            adj._points = None
            adj._adjoint = None
            adj._stream_owner = self._stream_owner
            adj._make_inner(self._on_device, self._device, self._stream)
            self._adjoint = adj
            self._set_adjoint_points()
        return self._adjoint.execute(data, out)


class _StreamOrder:
    """Orders a device call on the plan's stream after the caller's work and the caller's
    later work after it, when the caller's current stream is another one."""

    __slots__ = ("plan", "caller")

    def __init__(self, plan, ad, array):
        self.plan = plan
        s = _caller_stream(ad, array, plan._device)
        self.caller = plan._stream if s is None else s

    def __enter__(self):
        if self.caller != self.plan._stream:
            _core.stream_wait(self.plan._device, self.plan._stream, self.caller)

    def __exit__(self, *exc):
        if self.caller != self.plan._stream:
            _core.stream_wait(self.plan._device, self.caller, self.plan._stream)
        return False


def _caller_stream(ad, array, device):
    """The stream the caller's work on `array` is on: the library's current stream (CuPy,
    PyTorch), or the stream a __cuda_array_interface__ names; None when unknown."""
    if ad is _arrays.CudaArrayInterface:
        return ad.stream_of(array)
    return ad.current_stream(device)


def _current_device():
    return _core.current_device()


def _copy_options(o):
    c = _core.Options()
    for k in dir(o):
        if not k.startswith("_"):
            try:
                setattr(c, k, getattr(o, k))
            except AttributeError:
                pass
    return c
