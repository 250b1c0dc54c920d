// GpuEwald in builds without the CUDA engine: no context is ever CUDA there, so nothing
// constructs it; the constructor says so should anything try.
#include "gpu_ewald.hpp"

#include "nufftmp/errors.hpp"

namespace nufftmp::ewald::detail {

struct GpuEwald::Impl {};

GpuEwald::GpuEwald(int, void*) {
  throw Error(ErrorCode::NotAvailable, "ewald: the CUDA engine is not built in");
}
GpuEwald::~GpuEwald() = default;
double GpuEwald::free_memory(int) { return 0; }
void GpuEwald::upload(const Ion*, std::int64_t, std::int64_t, const double*) {}
const double* GpuEwald::nufft_x() const { return nullptr; }
const double* GpuEwald::nufft_y() const { return nullptr; }
const double* GpuEwald::nufft_z() const { return nullptr; }
std::complex<double>* GpuEwald::charges() { return nullptr; }
std::int64_t GpuEwald::real_space(const CellGrid&, const PairParams&, bool) { return -1; }
void GpuEwald::upload_real_space(const double*, const double*, const double*, const double*,
                                 bool) {}
void GpuEwald::set_phased(bool) {}
double GpuEwald::held_bytes() const { return 0; }
double GpuEwald::peak_bytes() const { return 0; }
std::complex<double>* GpuEwald::modes(std::int64_t) { return nullptr; }
double GpuEwald::apply_green(const ModeGrid&, bool) { return 0; }
void GpuEwald::release_nufft_inputs() {}
void GpuEwald::release_modes() {}
std::complex<double>* GpuEwald::values(std::int64_t) { return nullptr; }
double GpuEwald::assemble(double, double, double, bool, double*, double*, double*, double*) {
  return 0;
}

}  // namespace nufftmp::ewald::detail
