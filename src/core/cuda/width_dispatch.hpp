// The one place where run-time (kernel width, points' layout) become compile-time constants
// for the hot loops; the dimension is the translation unit's (tu_instance.hpp). Only widths a
// plan of precision T can reach are instantiated: float plans clamp at kMaxWidthFloat = 10
// (common/kernel.hpp), double reaches 16.
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

// Calls f(W, D, P) for the dimension D of the caller's translation unit (tu_instance.hpp), with
// P the points as the type of their layout (SplitPoints or RecordPoints: records non-null), the
// kernel's last template argument: kernel<..., W.value, D.value, decltype(P)>.
template <typename T, int D, typename F>
void dispatch_kernel(int w, const PointsView<T>& pts, F&& f) {
  dispatch_width_from<kMinWidth, kMaxWidthFor<T>>(w, [&](auto W) {
    const std::integral_constant<int, D> dim{};
    if (pts.records != nullptr) f(W, dim, RecordPoints<T>(pts));
    else f(W, dim, SplitPoints<T>(pts));
  });
}

}  // namespace nufftmp::detail
