// Builds without CUDA: matching, merging, phasing and the reconstruction's generation always
// take the host paths (match_on_gpu is false; a context never runs the CUDA engine; phase()
// with backend Cuda is refused here), so the GPU entry points below are unreachable in normal
// use and say clearly what is missing if reached.
#include <string>

#include "generation_engine.hpp"
#include "match_gpu.hpp"
#include "merger_gpu.hpp"
#include "phasing_gpu.hpp"
#include "phasing_schedule.hpp"

namespace nufftmp::mtip::detail {

namespace {
[[noreturn]] void absent(const char* what) {
  throw Error(ErrorCode::NotAvailable,
              std::string(what) + ": this build of nufftmp has no CUDA (NUFFTMP_CUDA=OFF or no nvcc)");
}
}  // namespace

bool match_on_gpu(const MPI_Comm*, const Options&) { return false; }

template <typename T>
TopMatches match_top_k_gpu(const MPI_Comm*, const std::vector<double>&, std::int64_t,
                           const std::vector<Quaternion>&, const std::vector<double>&, double,
                           const float*, std::int64_t, std::int64_t, const std::vector<float>&,
                           const MatchOptions&, const Options&, MatchReport*) {
  absent("matching on the GPU");
}

template <typename T>
struct GpuMerger<T>::Impl {};
template <typename T>
GpuMerger<T>::GpuMerger(dist::Context&, std::int64_t, const MergeOptions&, const Options&,
                        double) {
  absent("merging on the GPU");
}
template <typename T>
GpuMerger<T>::~GpuMerger() = default;
template <typename T>
void GpuMerger<T>::set_points_host(std::int64_t, const T*, const T*, const T*, const T*) {
  absent("merging on the GPU");
}
template <typename T>
void GpuMerger<T>::set_orientations(const DeviceImages&, double, const Quaternion*,
                                    std::int64_t, const std::vector<double>&,
                                    const std::vector<double>&) {
  absent("merging on the GPU");
}
template <typename T>
void GpuMerger<T>::set_cg_tol(double) {
  absent("merging on the GPU");
}
template <typename T>
MergeReport GpuMerger<T>::solve_host(const T*, std::vector<double>&) {
  absent("merging on the GPU");
}
template <typename T>
MergeReport GpuMerger<T>::solve_device(const double*, std::vector<double>&) {
  absent("merging on the GPU");
}
template <typename T>
void GpuMerger<T>::adjoint_host(const T*, std::vector<std::complex<double>>&) {
  absent("merging on the GPU");
}
template <typename T>
void GpuMerger<T>::apply_normal_host(const std::vector<std::complex<double>>&,
                                     std::vector<std::complex<double>>&) {
  absent("merging on the GPU");
}
template <typename T>
double GpuMerger<T>::weight_sum() const {
  return 0;
}
template <typename T>
std::int64_t GpuMerger<T>::num_points() const {
  return 0;
}

PhaseResult phase_on_gpu(const std::vector<double>&, std::int64_t, const PhaseOptions&,
                         const std::vector<double>&, const Options&) {
  absent("phasing on the GPU");
}

std::vector<PhaseResult> phase_runs_on_gpu(const std::vector<double>&, std::int64_t,
                                           const PhaseOptions&,
                                           const std::vector<std::uint64_t>&,
                                           const std::vector<double>&, int, void*) {
  absent("phasing on the GPU");
}

template <typename T>
std::unique_ptr<GenerationEngine<T>> make_gpu_generation_engine(dist::Context&,
                                                                const GenerationInputs&) {
  absent("the reconstruction on the GPU");
}

#define NUFFTMP_GPU_ABSENT(T)                                                                  \
  template TopMatches match_top_k_gpu<T>(const MPI_Comm*, const std::vector<double>&,         \
                                         std::int64_t, const std::vector<Quaternion>&,         \
                                         const std::vector<double>&, double, const float*,     \
                                         std::int64_t, std::int64_t, const std::vector<float>&, \
                                         const MatchOptions&, const Options&, MatchReport*);   \
  template class GpuMerger<T>;                                                                 \
  template std::unique_ptr<GenerationEngine<T>> make_gpu_generation_engine<T>(                \
      dist::Context&, const GenerationInputs&);
NUFFTMP_GPU_ABSENT(float)
NUFFTMP_GPU_ABSENT(double)
#undef NUFFTMP_GPU_ABSENT

}  // namespace nufftmp::mtip::detail
