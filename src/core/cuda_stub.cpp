// Built instead of cuda/ when the CUDA engine is off: asking for it is a clear error.
#include "engine.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

template <typename T>
std::unique_ptr<Engine<T>> make_cuda_engine(const PlanConfig&) {
  throw Error(ErrorCode::NotAvailable,
              "backend = cuda requested, but nufftmp was built without the CUDA engine "
              "(configure with -DNUFFTMP_CUDA=ON)");
}
template std::unique_ptr<Engine<float>> make_cuda_engine<float>(const PlanConfig&);
template std::unique_ptr<Engine<double>> make_cuda_engine<double>(const PlanConfig&);

int cuda_device_count_impl() noexcept { return 0; }

}  // namespace nufftmp::detail
