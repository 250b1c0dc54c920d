// The one place where run-time (dimension, kernel width, points' layout) become compile-time
// constants for the hot loops. Only widths a plan of precision T can reach are instantiated:
// float plans clamp at kMaxWidthFloat = 10 (common/kernel.hpp), double reaches 16.
#pragma once

#include <string>
#include <type_traits>

#include "common/kernel.hpp"
#include "cuda/device_views.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

template <typename T>
constexpr int kMaxWidthFor = max_width<T>();

template <int W, int WMax, typename F>
void dispatch_width_from(int w, F&& f) {
  if constexpr (W <= WMax) {
    if (w == W) {
      f(std::integral_constant<int, W>{});
      return;
    }
    dispatch_width_from<W + 1, WMax>(w, f);
  } else {
    throw Error(ErrorCode::Internal,
                "kernel width w = " + std::to_string(w) + " has no compiled kernel");
  }
}

// Calls f(integral_constant<int, W>, integral_constant<int, D>).
template <typename T, typename F>
void dispatch_width_dim(int w, int dim, F&& f) {
  dispatch_width_from<kMinWidth, kMaxWidthFor<T>>(w, [&](auto W) {
    switch (dim) {
      case 1: f(W, std::integral_constant<int, 1>{}); break;
      case 2: f(W, std::integral_constant<int, 2>{}); break;
      case 3: f(W, std::integral_constant<int, 3>{}); break;
      default: throw Error(ErrorCode::Internal, "dim = " + std::to_string(dim));
    }
  });
}

// Calls f(W, D, P) with P the points as the type of their layout (SplitPoints or RecordPoints:
// records non-null), the kernel's last template argument: kernel<..., W.value, D.value,
// decltype(P)>.
template <typename T, typename F>
void dispatch_kernel(int w, int dim, const PointsView<T>& pts, F&& f) {
  dispatch_width_dim<T>(w, dim, [&](auto W, auto D) {
    if (pts.records != nullptr) f(W, D, RecordPoints<T>(pts));
    else f(W, D, SplitPoints<T>(pts));
  });
}

}  // namespace nufftmp::detail
