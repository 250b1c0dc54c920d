// The one place where run-time (dimension, kernel width) become compile-time constants for the
// hot loops. Only widths a plan of precision T can reach are instantiated: float plans clamp
// at kMaxWidthFloat = 10 (common/kernel.hpp), double reaches 16.
#pragma once

#include <string>
#include <type_traits>

#include "common/kernel.hpp"
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

}  // namespace nufftmp::detail
