// Which rank owns an ion, and which ranks need it as a halo: the box is cut into P slabs of
// equal thickness along z (rank r owns z in [r, r + 1) Lz / P); an ion is needed by every
// rank whose slab comes within rcut of it (periodically). Pure logic, unit-tested.
#pragma once

#include <vector>

namespace nufftmp::ewald::detail {

class SlabLayout {
 public:
  SlabLayout(int nranks, double Lz, double rcut);
  // z wrapped into [0, Lz).
  int owner(double z) const;
  // The ranks other than owner(z) whose slab lies within rcut of z, each once, ascending.
  void halo_ranks(double z, std::vector<int>& out) const;

 private:
  int p_;
  double lz_, rc_, t_;
};

}  // namespace nufftmp::ewald::detail
