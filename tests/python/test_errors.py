"""Bad inputs: FINUFFT's/cuFINUFFT's kinds of errors (TypeError for dtypes and array kinds,
ValueError for shapes and sizes), the C++ library's own (a ValueError subclass naming the
parameter and its value), never a crash or a silent wrong answer."""

import numpy as np
import pytest

import nufftmp


@pytest.fixture
def plan1d():
    p = nufftmp.Plan(1, (10,), eps=1e-8)
    p.setpts(np.linspace(-3, 3, 20))
    return p


def test_wrong_dtypes_are_type_errors(plan1d):
    with pytest.raises(TypeError, match="does not have the correct dtype: float32 was given"):
        nufftmp.Plan(1, (10,), dtype="complex128").setpts(np.zeros(5, np.float32))
    with pytest.raises(TypeError, match="complex64 was given, but complex128"):
        plan1d.execute(np.zeros(20, np.complex64))
    with pytest.raises(TypeError, match="`data` does not have the correct dtype"):
        plan1d.execute(np.zeros(20))  # real data
    with pytest.raises(TypeError, match="`out` does not have the correct dtype"):
        plan1d.execute(np.zeros(20, np.complex128), out=np.zeros(10, np.complex64))
    with pytest.raises(TypeError, match="complex64 or complex128"):
        nufftmp.Plan(1, (10,), dtype="int32")
    with pytest.raises(TypeError, match="must be an array"):
        plan1d.execute([1, 2, 3])
    with pytest.raises(TypeError, match="float32 or float64"):
        nufftmp.nufft1d1(np.zeros(5, np.int64), np.zeros(5, complex), 4)


def test_real_dtype_is_deprecated_but_accepted():
    with pytest.warns(DeprecationWarning):
        p = nufftmp.Plan(2, (4,), dtype="float32")
    assert p.dtype == np.complex64


def test_wrong_shapes_are_value_errors(plan1d):
    with pytest.raises(ValueError, match=r"`data` must be of shape \(20,\)"):
        plan1d.execute(np.zeros(21, np.complex128))
    with pytest.raises(TypeError):  # cuFINUFFT raises TypeError for shapes: caught as well
        plan1d.execute(np.zeros(21, np.complex128))
    with pytest.raises(ValueError, match="`out` must be of shape"):
        plan1d.execute(np.zeros(20, np.complex128), out=np.zeros(11, np.complex128))
    p = nufftmp.Plan(2, (4, 5), n_trans=2)
    p.setpts(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match=r"must be of shape \(2, 4, 5\)"):
        p.execute(np.zeros((2, 5, 4), np.complex128))  # axes swapped
    with pytest.raises(ValueError, match=r"must be of shape \(2, 4, 5\)"):
        p.execute(np.zeros((3, 4, 5), np.complex128))  # n_trans wrong
    with pytest.raises(ValueError, match="must be a vector"):
        p.setpts(np.zeros((3, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match=r"`y` must be of shape \(3,\)"):
        p.setpts(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="`y` is missing"):
        p.setpts(np.zeros(3))
    with pytest.raises(ValueError, match="Plan dimension is 2, but `z` was specified"):
        p.setpts(np.zeros(3), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="targets of a type 3 plan"):
        p.setpts(np.zeros(3), np.zeros(3), s=np.zeros(3))


def test_out_must_be_contiguous_and_writeable(plan1d):
    c = np.zeros(20, np.complex128)
    with pytest.raises(TypeError, match="requirement: C"):
        plan1d.execute(c, out=np.zeros(20, np.complex128)[::2])
    ro = np.zeros(10, np.complex128)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="requirement: W"):
        plan1d.execute(c, out=ro)


def test_bad_plan_parameters():
    with pytest.raises(ValueError, match="nufft_type"):
        nufftmp.Plan(4, (10,))
    with pytest.raises(ValueError, match="dimensions 1, 2, and 3"):
        nufftmp.Plan(1, (2, 2, 2, 2))
    with pytest.raises(ValueError, match="n_trans"):
        nufftmp.Plan(1, (10,), n_trans=0)
    with pytest.raises(ValueError, match=">= 1"):
        nufftmp.Plan(1, (10, 0))
    with pytest.raises(ValueError, match="eps"):
        nufftmp.Plan(1, (10,), eps=-1.0)
    # The C++ checks, run when the plan is made (its engine is made later): ValueError too.
    with pytest.raises(nufftmp.InvalidArgumentError, match="upsampfac = 3"):
        nufftmp.Plan(1, (10,), upsampfac=3.0)
    with pytest.raises(ValueError, match="modeord = 2"):
        nufftmp.Plan(1, (10,), modeord=2)


def test_eps_outside_the_range_is_clamped_with_a_warning():
    with pytest.warns(UserWarning, match="outside nufftmp's range"):
        p = nufftmp.Plan(1, (10,), eps=1e-16)
    assert p.eps == 1e-16
    with pytest.warns(UserWarning, match="float can reach"):
        nufftmp.Plan(1, (10,), eps=1e-9, dtype="complex64")


def test_bad_points_are_reported_with_index_and_value():
    p = nufftmp.Plan(2, (8, 8))
    x = np.zeros(10)
    y = np.zeros(10)
    y[7] = 20.0
    with pytest.raises(nufftmp.BadPointsError, match="20") as e:
        p.setpts(x, y)
    assert isinstance(e.value, ValueError)
    x[3] = np.nan
    with pytest.raises(ValueError, match="nan"):
        p.setpts(x, np.zeros(10))


def test_execute_before_setpts():
    with pytest.raises(RuntimeError, match="setpts"):
        nufftmp.Plan(1, (4,)).execute(np.zeros(3, np.complex128))


def test_type3_is_not_available_yet():
    with pytest.raises(NotImplementedError, match="type 3"):
        nufftmp.Plan(3, 2)
    with pytest.raises(NotImplementedError, match="type 3"):
        nufftmp.nufft1d3(np.zeros(3), np.zeros(3, complex), np.zeros(4))
    with pytest.raises(NotImplementedError, match="type 3"):
        nufftmp.nufft3d3(*[np.zeros(3)] * 3, np.zeros(3, complex), *[np.zeros(4)] * 3)


def test_options_unknown_ignored_and_unsupported():
    with pytest.raises(TypeError, match="Invalid option 'modord'"):
        nufftmp.Plan(1, (4,), modord=1)
    with pytest.warns(UserWarning, match="ignores option `fftw`"):
        nufftmp.Plan(1, (4,), fftw=0)
    with pytest.raises(NotImplementedError, match="spreadinterponly"):
        nufftmp.Plan(1, (4,), spreadinterponly=1)
    nufftmp.Plan(1, (4,), spreadinterponly=0)  # the default is fine
    with pytest.raises(ValueError, match="gpu_method"):
        nufftmp.Plan(1, (4,), gpu_method=7)
    with pytest.raises(ValueError, match="unknown value 'gpu'"):
        nufftmp.Plan(1, (4,), backend="gpu")


def test_device_arrays_on_a_cpu_plan():
    class FakeDevice:  # a device array as seen through __cuda_array_interface__
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f8", "data": (1 << 40, False),
                                    "version": 3, "strides": None, "stream": None}
    p = nufftmp.Plan(1, (4,), backend="cpu")
    with pytest.raises(TypeError, match="CPU engine"):
        p.setpts(FakeDevice())
