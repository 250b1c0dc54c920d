"""The exceptions of nufftmp.

Every failure of the C++ library (a ``nufftmp::Error``) arrives as a subclass of
:class:`NufftError` chosen by its error code, which also derives from the built-in exception a
Python user would catch: bad parameters and bad points are ``ValueError``, out of memory is
``MemoryError``, the rest ``RuntimeError`` (as FINUFFT's Python package raises). Checks made by
the Python layer itself (array dtypes, shapes, kinds) raise plain ``TypeError`` / ``ValueError``
with FINUFFT's and cuFINUFFT's wording; a wrong shape is a :class:`ShapeError`.
"""


class ShapeError(ValueError, TypeError):
    """An array argument of the wrong shape or size: a ValueError, and a TypeError too because
    cuFINUFFT raises TypeError for these (code written for either catches it)."""


class NufftError(RuntimeError):
    """A failure reported by the nufftmp C++ library."""

    code = None  # the ErrorCode name (str), set on each subclass


class InvalidArgumentError(NufftError, ValueError):
    code = "InvalidArgument"


class BadPointsError(NufftError, ValueError):
    code = "BadPoints"


class ToleranceTooSmallError(NufftError, ValueError):
    code = "ToleranceTooSmall"


class OutOfMemoryError(NufftError, MemoryError):
    code = "OutOfMemory"


class NotAvailableError(NufftError):
    code = "NotAvailable"


class RemoteFailureError(NufftError):
    """Another MPI rank failed; this rank stopped with it (the message is that rank's)."""

    code = "RemoteFailure"


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, BadPointsError,
                                       ToleranceTooSmallError, OutOfMemoryError,
                                       NotAvailableError, RemoteFailureError)}
_OTHER = {}


def class_for_code(code):
    """The exception class of an ErrorCode (called by the bindings' translator)."""
    name = getattr(code, "name", str(code))
    cls = _BY_CODE.get(name)
    if cls is None:
        # CudaFailure, MpiFailure, ...: one RuntimeError subclass per code, made once.
        cls = _OTHER.get(name)
        if cls is None:
            cls = type(name + "Error", (NufftError,), {"code": name})
            _OTHER[name] = cls
    return cls
