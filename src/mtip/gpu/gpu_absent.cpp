// Builds without CUDA: matching and the merging CG's convolution always take the host path
// (match_on_gpu is false; a Merger's context never runs the CUDA engine), so the GPU entry
// points below are unreachable and only say so if reached.
#include <string>

#include "match_gpu.hpp"
#include "toeplitz_gpu.hpp"

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
template TopMatches match_top_k_gpu<float>(const MPI_Comm*, const std::vector<double>&,
                                           std::int64_t, const std::vector<Quaternion>&,
                                           const std::vector<double>&, double, const float*,
                                           std::int64_t, std::int64_t, const std::vector<float>&,
                                           const MatchOptions&, const Options&, MatchReport*);
template TopMatches match_top_k_gpu<double>(const MPI_Comm*, const std::vector<double>&,
                                            std::int64_t, const std::vector<Quaternion>&,
                                            const std::vector<double>&, double, const float*,
                                            std::int64_t, std::int64_t,
                                            const std::vector<float>&, const MatchOptions&,
                                            const Options&, MatchReport*);

struct GpuToeplitz::Impl {};
GpuToeplitz::GpuToeplitz(std::int64_t, const std::complex<double>*, int, void*) {
  absent("the merging CG on the GPU");
}
GpuToeplitz::~GpuToeplitz() = default;
void GpuToeplitz::apply(const std::complex<double>*, std::complex<double>*) {
  absent("the merging CG on the GPU");
}

}  // namespace nufftmp::mtip::detail
