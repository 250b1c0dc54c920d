// GpuEwald: the device buffers (core's stream-ordered DeviceBuffer, grown as needed and kept
// between calls, or with phased buffers freed to the pool after their phase) and the order
// of the kernels of kernels.hpp. Host compiler.
#include "gpu_ewald.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "kernels.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::ewald::detail {

using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

struct GpuEwald::Impl {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::int64_t n_all = 0, n_owned = 0;
  DeviceBuffer<Ion> ions, sorted;
  DeviceBuffer<int> keys, keys_sorted, order_in, order, start;
  DeviceBuffer<unsigned char> temp;
  DeviceBuffer<double> x, y, z, charges;  // charges: complex, interleaved
  DeviceBuffer<double> real;              // phi, fx, fy, fz of the owned ions; then the results
  DeviceBuffer<double> modes, values, e, qphi, sum;  // modes: S, then the type 2 input
  DeviceBuffer<unsigned long long> first_bad;
  bool phased = false;
  double peak = 0;

  double held() const {
    return double(ions.bytes() + sorted.bytes() + keys.bytes() + keys_sorted.bytes() +
                  order_in.bytes() + order.bytes() + start.bytes() + temp.bytes() + x.bytes() +
                  y.bytes() + z.bytes() + charges.bytes() + real.bytes() + modes.bytes() +
                  values.bytes() + e.bytes() + qphi.bytes() + sum.bytes() + first_bad.bytes());
  }
  // At the end of a phase (its buffers all held): the peak, then (phased) free them.
  void end_phase() { peak = std::max(peak, held()); }

  template <typename T>
  void reserve(DeviceBuffer<T>& b, std::int64_t count, const char* what) {
    b.reserve(static_cast<std::size_t>(count > 0 ? count : 1), device, stream, what);
  }
  void sync() { NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream)); }
  void to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  }
  void to_device(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  }
  double reduce(const double* in, std::int64_t n) {
    reserve(sum, 1, "ewald energy sum");
    if (n == 0) return 0.0;
    const std::size_t bytes = sum_temp_bytes(n);
    reserve(temp, static_cast<std::int64_t>(bytes), "ewald reduction workspace");
    device_sum(temp.get(), bytes, in, sum.get(), n, stream);
    double h = 0;
    to_host(&h, sum.get(), sizeof(double));
    sync();
    return h;
  }
};

GpuEwald::GpuEwald(int device, void* stream) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  impl_->stream = static_cast<cudaStream_t>(stream);
}
GpuEwald::~GpuEwald() = default;

double GpuEwald::free_memory(int device) {
  DeviceGuard guard(device);
  std::size_t free_b = 0, total_b = 0;
  NUFFTMP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return static_cast<double>(free_b);
}

void GpuEwald::set_phased(bool phased) { impl_->phased = phased; }
double GpuEwald::held_bytes() const { return impl_->held(); }
double GpuEwald::peak_bytes() const { return impl_->peak; }

void GpuEwald::upload(const Ion* ions, std::int64_t n_all, std::int64_t n_owned,
                      const double L[3]) {
  Impl& s = *impl_;
  if (n_all > INT_MAX)
    throw Error(ErrorCode::InvalidArgument,
                "ewald: " + std::to_string(n_all) +
                    " ions (owned and halo) on one GPU: at most 2^31 - 1 are supported");
  DeviceGuard guard(s.device);
  s.n_all = n_all;
  s.n_owned = n_owned;
  s.reserve(s.ions, n_all, "ewald ions");
  s.to_device(s.ions.get(), ions, sizeof(Ion) * static_cast<std::size_t>(n_all));
  s.reserve(s.x, n_owned, "ewald NUFFT x");
  s.reserve(s.y, n_owned, "ewald NUFFT y");
  s.reserve(s.z, n_owned, "ewald NUFFT z");
  s.reserve(s.charges, 2 * n_owned, "ewald charges");
  nufft_inputs(s.ions.get(), n_owned, 2 * M_PI / L[0], 2 * M_PI / L[1], 2 * M_PI / L[2], s.x.get(),
               s.y.get(), s.z.get(), s.charges.get(), s.stream);
  s.sync();
}

const double* GpuEwald::nufft_x() const { return impl_->x.get(); }
const double* GpuEwald::nufft_y() const { return impl_->y.get(); }
const double* GpuEwald::nufft_z() const { return impl_->z.get(); }
std::complex<double>* GpuEwald::charges() {
  return reinterpret_cast<std::complex<double>*>(impl_->charges.get());
}

std::int64_t GpuEwald::real_space(const CellGrid& g, const PairParams& p, bool forces) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t n_cells = g.count();
  if (n_cells >= INT_MAX)
    throw Error(ErrorCode::Internal, "ewald: " + std::to_string(n_cells) + " cells on one GPU");
  const int n = static_cast<int>(s.n_all), cells = static_cast<int>(n_cells);
  int key_bits = 1;
  while (key_bits < 31 && (std::int64_t(1) << key_bits) < n_cells) ++key_bits;
  s.reserve(s.real, 4 * s.n_owned, "ewald real-space sums");
  if (s.n_owned == 0) return -1;
  s.reserve(s.keys, n, "ewald cell keys");
  s.reserve(s.keys_sorted, n, "ewald sorted cell keys");
  s.reserve(s.order_in, n, "ewald ion order");
  s.reserve(s.order, n, "ewald sorted ion order");
  s.reserve(s.sorted, n, "ewald ions in cell order");
  s.reserve(s.start, std::int64_t(cells) + 1, "ewald cell offsets");
  const std::size_t sort_bytes = sort_by_cell_temp_bytes(n, key_bits);
  s.reserve(s.temp, static_cast<std::int64_t>(sort_bytes), "ewald sort workspace");
  s.reserve(s.first_bad, 1, "ewald close-pair flag");

  cell_keys(s.ions.get(), n, g, s.keys.get(), s.order_in.get(), s.stream);
  sort_by_cell(s.temp.get(), sort_bytes, s.keys.get(), s.keys_sorted.get(), s.order_in.get(),
               s.order.get(), n, key_bits, s.stream);
  cell_starts(s.keys_sorted.get(), n, cells, s.start.get(), s.stream);
  gather_sorted(s.ions.get(), s.order.get(), n, s.sorted.get(), s.stream);
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(s.first_bad.get(), 0xff, sizeof(unsigned long long), s.stream));
  real_space_sums(s.sorted.get(), s.order.get(), s.start.get(), n, static_cast<int>(s.n_owned), g,
                  p, forces, s.real.get(), s.first_bad.get(), s.stream);
  unsigned long long bad = 0;
  s.to_host(&bad, s.first_bad.get(), sizeof(bad));
  s.sync();
  s.end_phase();
  if (s.phased) {
    s.sorted.release();
    s.keys.release();
    s.keys_sorted.release();
    s.order_in.release();
    s.order.release();
    s.start.release();
    s.temp.release();
  }
  return bad == ~0ULL ? -1 : static_cast<std::int64_t>(bad);
}

void GpuEwald::upload_real_space(const double* phi, const double* fx, const double* fy,
                                 const double* fz, bool forces) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  s.reserve(s.real, 4 * s.n_owned, "ewald real-space sums");
  const std::size_t b = sizeof(double) * static_cast<std::size_t>(s.n_owned);
  s.to_device(s.real.get(), phi, b);
  if (forces) {
    s.to_device(s.real.get() + s.n_owned, fx, b);
    s.to_device(s.real.get() + 2 * s.n_owned, fy, b);
    s.to_device(s.real.get() + 3 * s.n_owned, fz, b);
  }
  s.sync();
}

std::complex<double>* GpuEwald::modes(std::int64_t count) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  s.reserve(s.modes, 2 * count, "ewald mode array");
  return reinterpret_cast<std::complex<double>*>(s.modes.get());
}

double GpuEwald::apply_green(const ModeGrid& m, bool forces) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  s.reserve(s.e, m.count(), "ewald mode energies");
  green_modes(m, s.modes.get(), s.modes.get(), s.e.get(), forces, s.stream);
  const double total = s.reduce(s.e.get(), m.count());
  if (s.phased) s.e.release();
  return total;
}

void GpuEwald::release_nufft_inputs() {
  Impl& s = *impl_;
  if (!s.phased) return;
  DeviceGuard guard(s.device);
  s.end_phase();
  s.x.release();
  s.y.release();
  s.z.release();
  s.charges.release();
}

void GpuEwald::release_modes() {
  Impl& s = *impl_;
  s.end_phase();
  if (!s.phased) return;
  DeviceGuard guard(s.device);
  s.modes.release();
}

std::complex<double>* GpuEwald::values(std::int64_t count) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  s.reserve(s.values, 2 * count, "ewald type 2 values");
  return reinterpret_cast<std::complex<double>*>(s.values.get());
}

double GpuEwald::assemble(double self, double background, double inv_s, bool forces,
                          double* phi, double* fx, double* fy, double* fz) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t n = s.n_owned;
  s.reserve(s.qphi, n, "ewald real-space energies");
  assemble_results(s.ions.get(), n, s.real.get(), s.values.get(), self, background, inv_s,
                   forces, s.real.get(), s.qphi.get(), s.stream);
  const std::size_t b = sizeof(double) * static_cast<std::size_t>(n);
  s.to_host(phi, s.real.get(), b);
  if (forces) {
    s.to_host(fx, s.real.get() + n, b);
    s.to_host(fy, s.real.get() + 2 * n, b);
    s.to_host(fz, s.real.get() + 3 * n, b);
  }
  const double local = s.reduce(s.qphi.get(), n);  // synchronises: the copies are done after it
  s.end_phase();
  if (s.phased) {
    s.values.release();
    s.qphi.release();
  }
  return local;
}

}  // namespace nufftmp::ewald::detail
