// The one place where the kernel width becomes a compile-time constant: the hot loops of
// spreading and interpolation are templates on W, and with_width() calls the right one.
#pragma once

#include <string>
#include <type_traits>

#include "common/kernel.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

// b^e at compile time (rows of W cells a point touches in D dimensions: W^(D-1)).
constexpr int ipow(int b, int e) { return e == 0 ? 1 : b * ipow(b, e - 1); }

template <int W>
using Width = std::integral_constant<int, W>;

template <int Lo, int Hi, typename F>
void dispatch_width(int w, F&& f) {
  if constexpr (Lo == Hi) {
    f(Width<Lo>{});
  } else {
    if (w == Lo) {
      f(Width<Lo>{});
      return;
    }
    dispatch_width<Lo + 1, Hi>(w, std::forward<F>(f));
  }
}

// Calls f(Width<w>{}) for w in [kMinWidth, kMaxWidth].
template <typename F>
void with_width(int w, F&& f) {
  if (w < kMinWidth || w > kMaxWidth)
    throw Error(ErrorCode::Internal, "kernel width " + std::to_string(w) + " outside [2, 16]");
  dispatch_width<kMinWidth, kMaxWidth>(w, std::forward<F>(f));
}

}  // namespace nufftmp::detail::cpu
