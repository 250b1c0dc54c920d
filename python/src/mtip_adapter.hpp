// Where the Python bindings find M-TIP's slicing and merging: the one place to re-point when
// include/nufftmp/mtip.hpp is split by concern (bind_mtip.cpp names only these aliases).
#pragma once

#include "nufftmp/mtip.hpp"

namespace nufftmp::python::mtip_api {

template <typename T> using Slicer = nufftmp::mtip::Slicer<T>;
template <typename T> using Merger = nufftmp::mtip::Merger<T>;
using MergeOptions = nufftmp::mtip::MergeOptions;
using MergeReport = nufftmp::mtip::MergeReport;
using Quaternion = nufftmp::mtip::Quaternion;
using Detector = nufftmp::mtip::Detector;
using nufftmp::mtip::pixel_positions_reciprocal;
using nufftmp::mtip::reciprocal_scale;
using nufftmp::mtip::reference_orientations;
using nufftmp::mtip::slice_points;

}  // namespace nufftmp::python::mtip_api
