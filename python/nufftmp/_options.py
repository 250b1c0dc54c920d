"""Keyword options of a plan: FINUFFT's and cuFINUFFT's names, and nufftmp's own.

Three kinds of FINUFFT/cuFINUFFT options:
  * honoured: mapped onto nufftmp's Options (modeord, upsampfac, nthreads, gpu_method, ...);
  * tuning-only options of their implementations (fftw, spread_thread, gpu_obinsizex, ...):
    accepted and ignored with a warning, since they cannot change the result;
  * options that change what is computed and that nufftmp does not implement
    (spreadinterponly): NotImplementedError unless they have their default value.
Besides, every field of nufftmp's C++ Options (``nufftmp.Options``: backend, method, sort,
autotune, binsize, ...) is a keyword of the same name; enum fields take their member names as
strings (``backend="cuda"``, ``method="gm-sort"``). Anything else is a TypeError (as cuFINUFFT
does): a misspelt option is never silently ignored.
"""

import warnings

from . import _core


def _int(v):
    return int(v)


def _stream_value(v):
    """cudaStream_t value of an int, a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream)."""
    if v is None:
        return 0
    for attr in ("ptr", "cuda_stream"):
        if hasattr(v, attr):
            return int(getattr(v, attr))
    return int(v)


def _upsampfac(o, v):
    # FINUFFT's 0.0 means "choose": keep nufftmp's default (which chooses when it can).
    if float(v) != 0.0:
        o.upsampfac = float(v)


def _kerevalmeth(o, v):
    o.kernel_eval = _core.KernelEval.Horner if int(v) != 0 else _core.KernelEval.Direct


def _binsize(axis):
    def set_(o, v):
        b = list(o.binsize)
        b[axis] = int(v)
        o.binsize = b
    return set_


def _setter(field, conv=_int):
    def set_(o, v):
        setattr(o, field, conv(v))
    return set_


# FINUFFT / cuFINUFFT option -> function(Options, value) that honours it.
_HONOURED = {
    "modeord": _setter("modeord"),
    "upsampfac": _upsampfac,
    "nthreads": _setter("nthreads"),
    "debug": _setter("debug"),
    "maxbatchsize": _setter("maxbatchsize"),
    "gpu_maxbatchsize": _setter("maxbatchsize"),
    "spread_kerevalmeth": _kerevalmeth,
    "gpu_kerevalmeth": _kerevalmeth,
    "gpu_device_id": _setter("gpu_device"),
    "gpu_stream": _setter("cuda_stream", _stream_value),
    "gpu_binsizex": _binsize(0),
    "gpu_binsizey": _binsize(1),
    "gpu_binsizez": _binsize(2),
    "gpu_maxsubprobsize": _setter("maxsubprobsize"),
    "gpu_np": _setter("points_per_block"),
}
# Read together after the others: cuFINUFFT's gpu_method 1 is GM with or without sorting.
_METHOD_KEYS = ("gpu_method", "gpu_sort", "spread_sort")

# Options that only tune FINUFFT's or cuFINUFFT's own implementation (or its diagnostics):
# they cannot change the result, so they are accepted and ignored, with a warning.
_IGNORED = frozenset({
    "spread_debug", "spread_kerpad", "fftw", "spread_thread", "spread_nthr_atomic",
    "spread_max_sp_size", "showwarn", "fftw_lock_fun", "fftw_unlock_fun", "fftw_lock_data",
    "spread_simd", "hint_nj", "gpu_obinsizex", "gpu_obinsizey", "gpu_obinsizez",
    "chkbnds",
})
# Options that change what is computed; nufftmp does not implement them.
_UNSUPPORTED = {"spreadinterponly": 0, "spread_interp_only": 0, "gpu_spreadinterponly": 0}


def _option_fields():
    return [k for k in dir(_core.Options) if not k.startswith("_")]


_FIELDS = frozenset(_option_fields())


def _enum_value(enum_type, value, key):
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        want = value.replace("-", "").replace("_", "").lower()
        for name in enum_type.__members__:
            if name.lower() == want:
                return enum_type.__members__[name]
        names = ", ".join(repr(n.lower()) for n in enum_type.__members__)
        raise ValueError(f"Option `{key}`: unknown value {value!r} (one of {names})")
    return enum_type(int(value))


def _set_field(o, key, value):
    current = getattr(o, key)
    enum_type = type(current)
    if hasattr(enum_type, "__members__"):
        value = _enum_value(enum_type, value, key)
    elif key == "cuda_stream":
        value = _stream_value(value)
    setattr(o, key, value)


def make_options(kwargs, stacklevel=3):
    """nufftmp Options from a plan's keyword arguments; also which of device / stream the
    caller fixed (the plan otherwise takes them from the arrays)."""
    o = _core.Options()
    fixed_device = fixed_stream = False
    method = {}
    for key, value in kwargs.items():
        if key in _HONOURED:
            try:
                _HONOURED[key](o, value)
            except (TypeError, ValueError) as e:
                raise ValueError(f"Option `{key}` = {value!r}: {e}") from None
            fixed_device |= key == "gpu_device_id"
            fixed_stream |= key == "gpu_stream"
        elif key in _METHOD_KEYS:
            method[key] = int(value)
        elif key in _UNSUPPORTED:
            if value != _UNSUPPORTED[key]:
                raise NotImplementedError(f"Option `{key}` = {value!r} is not implemented by "
                                          f"nufftmp (it computes the full transform only)")
        elif key in _IGNORED:
            warnings.warn(f"nufftmp ignores option `{key}` (it only tunes FINUFFT's/cuFINUFFT's "
                          f"own implementation and does not change the result)",
                          stacklevel=stacklevel)
        elif key in _FIELDS:
            _set_field(o, key, value)
            fixed_device |= key == "gpu_device"
            fixed_stream |= key == "cuda_stream"
        else:
            raise TypeError(f"Invalid option '{key}'")
    if method:
        sort = method.get("gpu_sort", method.get("spread_sort", 1)) != 0
        o.sort = sort
        m = method.get("gpu_method", 0)
        table = {0: _core.Method.Auto, 1: _core.Method.GMSort if sort else _core.Method.GM,
                 2: _core.Method.SM, 3: _core.Method.Output}
        if m not in table:
            raise ValueError(f"Option `gpu_method` = {m} (must be 0, 1, 2 or 3)")
        o.method = table[m]
    return o, fixed_device, fixed_stream
