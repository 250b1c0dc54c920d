// The kernels a tiled method can run (host-readable: the heuristics choose, the launches obey).
#pragma once

namespace nufftmp::detail {

// Which kernel a tiled method runs. heuristics.cpp picks one per (type, dim, precision, width)
// and NUFFTMP_CUDA_VARIANT overrides it for measurements (PERFORMANCE.md, "Kernel variants").
enum class KernelVariant {
  Auto = 0,  // a method without variants (GM, GM-sort, type 1 SM)
  Tile,      // type 1 output-driven: shared tile with atomics (32-bit fixed point for float)
  Rows,      // type 1 output-driven, double 2D/3D with 4-wide bins: register rows
  Sweep,     // 1D/2D: a warp per 32-column strip of the tile, points bucketed by row,
             // a register window of W rows sliding down the tile (spread_sweep.cu, interp_sweep.cu)
  Thread,    // type 2 SM: a thread per point
  Group,     // type 2 SM: lane groups (lane_group.cuh)
  Dealt,     // type 2 SM: a thread per point, points dealt so a warp's loads hit distinct banks
  Fixed,     // type 1 output-driven, double: the Tile kernel with a 64-bit fixed-point tile made
             // of two native 32-bit shared atomics per value (Fixed64Planes, tile_common.cuh)
};

}  // namespace nufftmp::detail
