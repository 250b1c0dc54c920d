"""The one-call functions nufft1d1 ... nufft3d3 of FINUFFT and cuFINUFFT: a plan made, its
points set and executed once. The precision follows the coordinates (float32 -> complex64,
float64 -> complex128); n_trans follows the data's leading axes; for type 1 the modes come
from n_modes (an int for every axis, or a tuple) or from `out`'s shape."""

import math
import numbers

from . import _arrays
from ._errors import ShapeError
from ._plan import Plan, type3_unavailable

_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _precision(x):
    ad, x = _arrays.adapter(x, "x")
    dt = ad.dtype(x)
    name = getattr(dt, "name", str(dt))
    if name not in _COMPLEX_OF:
        raise TypeError(f"Argument `x` must be float32 or float64, got {dt}")
    return _COMPLEX_OF[name]


def _modes_of(dim, n_modes, out):
    if n_modes is not None:
        if isinstance(n_modes, numbers.Integral):
            n_modes = (int(n_modes),) * dim
        else:
            n_modes = tuple(n_modes)
            if len(n_modes) != dim:
                raise ValueError(f"n_modes {n_modes} does not match the dimension {dim}")
    if out is not None:
        shape = _arrays.shape_of(out)
        if len(shape) < dim:
            raise ShapeError(f"Argument `out` must have at least {dim} axes, got {shape}")
        from_out = tuple(shape[len(shape) - dim:])
        if n_modes is not None and from_out != n_modes:
            raise ValueError(f"n_modes {n_modes} and the shape of `out` {shape} do not match")
        n_modes = from_out
    if n_modes is None:
        raise ValueError("type 1 needs n_modes or `out`")
    return n_modes


def _n_trans(shape, core, name):
    nd = len(core)
    if len(shape) < nd or tuple(shape[len(shape) - nd:]) != tuple(core):
        raise ShapeError(f"Argument `{name}` must end with axes {tuple(core)}, got {tuple(shape)}")
    return math.prod(shape[:len(shape) - nd])


def _type1(dim, pts, c, n_modes, out, eps, isign, kwargs):
    dtype = _precision(pts[0])
    M = _arrays.shape_of(pts[0])[0] if len(_arrays.shape_of(pts[0])) == 1 else None
    if M is None:
        raise ValueError("Argument `x` must be a vector")
    n_modes = _modes_of(dim, n_modes, out)
    n_trans = _n_trans(_arrays.shape_of(c), (M,), "c")
    plan = Plan(1, n_modes, n_trans, eps, isign, dtype, **kwargs)
    plan.setpts(*pts)
    return plan.execute(c, out)


def _type2(dim, pts, f, out, eps, isign, kwargs):
    dtype = _precision(pts[0])
    shape = _arrays.shape_of(f)
    if len(shape) < dim:
        raise ShapeError(f"Argument `f` must have at least {dim} axes, got {shape}")
    n_modes = tuple(shape[len(shape) - dim:])
    n_trans = math.prod(shape[:len(shape) - dim])
    plan = Plan(2, n_modes, n_trans, eps, isign, dtype, **kwargs)
    plan.setpts(*pts)
    return plan.execute(f, out)


def _type3(dim, pts, c, targets, out, eps, isign, kwargs):
    type3_unavailable()
    dtype = _precision(pts[0])
    M = _arrays.shape_of(pts[0])[0]
    n_trans = _n_trans(_arrays.shape_of(c), (M,), "c")
    plan = Plan(3, dim, n_trans, eps, isign, dtype, **kwargs)
    plan.setpts(*pts, *targets)
    return plan.execute(c, out)


def nufft1d1(x, c, n_modes=None, out=None, eps=1e-6, isign=1, **kwargs):
    """1D type 1: f[k] = sum_j c[j] exp(isign i k x[j]), -N/2 <= k <= (N-1)/2."""
    return _type1(1, (x,), c, n_modes, out, eps, isign, kwargs)


def nufft1d2(x, f, out=None, eps=1e-6, isign=-1, **kwargs):
    """1D type 2: c[j] = sum_k f[k] exp(isign i k x[j])."""
    return _type2(1, (x,), f, out, eps, isign, kwargs)


def nufft1d3(x, c, s, out=None, eps=1e-6, isign=1, **kwargs):
    """1D type 3: f[k] = sum_j c[j] exp(isign i s[k] x[j]) (not available in this version)."""
    return _type3(1, (x,), c, (s,), out, eps, isign, kwargs)


def nufft2d1(x, y, c, n_modes=None, out=None, eps=1e-6, isign=1, **kwargs):
    """2D type 1: f[k1, k2] = sum_j c[j] exp(isign i (k1 x[j] + k2 y[j])); f of shape (N1, N2)."""
    return _type1(2, (x, y), c, n_modes, out, eps, isign, kwargs)


def nufft2d2(x, y, f, out=None, eps=1e-6, isign=-1, **kwargs):
    """2D type 2: c[j] = sum_{k1, k2} f[k1, k2] exp(isign i (k1 x[j] + k2 y[j]))."""
    return _type2(2, (x, y), f, out, eps, isign, kwargs)


def nufft2d3(x, y, c, s, t, out=None, eps=1e-6, isign=1, **kwargs):
    """2D type 3 (not available in this version)."""
    return _type3(2, (x, y), c, (s, t), out, eps, isign, kwargs)


def nufft3d1(x, y, z, c, n_modes=None, out=None, eps=1e-6, isign=1, **kwargs):
    """3D type 1: f[k1, k2, k3] = sum_j c[j] exp(isign i (k1 x + k2 y + k3 z)[j])."""
    return _type1(3, (x, y, z), c, n_modes, out, eps, isign, kwargs)


def nufft3d2(x, y, z, f, out=None, eps=1e-6, isign=-1, **kwargs):
    """3D type 2: c[j] = sum_k f[k1, k2, k3] exp(isign i (k1 x + k2 y + k3 z)[j])."""
    return _type2(3, (x, y, z), f, out, eps, isign, kwargs)


def nufft3d3(x, y, z, c, s, t, u, out=None, eps=1e-6, isign=1, **kwargs):
    """3D type 3 (not available in this version)."""
    return _type3(3, (x, y, z), c, (s, t, u), out, eps, isign, kwargs)
