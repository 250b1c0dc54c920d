#include "slab_layout.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::ewald::detail {

SlabLayout::SlabLayout(int nranks, double Lz, double rcut)
    : p_(nranks), lz_(Lz), rc_(rcut), t_(Lz / nranks) {}

int SlabLayout::owner(double z) const {
  const int r = static_cast<int>(std::floor(z / t_));
  return std::clamp(r, 0, p_ - 1);
}

void SlabLayout::halo_ranks(double z, std::vector<int>& out) const {
  out.clear();
  if (p_ == 1) return;
  const int own = owner(z);
  // Unwrapped slab indices touched by [z - rc, z + rc]; all ranks when it spans the box.
  const long lo = static_cast<long>(std::floor((z - rc_) / t_));
  const long hi = static_cast<long>(std::floor((z + rc_) / t_));
  if (hi - lo + 1 >= p_) {
    for (int r = 0; r < p_; ++r)
      if (r != own) out.push_back(r);
    return;
  }
  for (long u = lo; u <= hi; ++u) {
    const int r = static_cast<int>(((u % p_) + p_) % p_);
    if (r != own) out.push_back(r);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace nufftmp::ewald::detail
