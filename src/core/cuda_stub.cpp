// Built instead of cuda/ when the CUDA engine is off: asking for it is a clear error.
#include "engine.hpp"
#include "nufftmp/errors.hpp"
#include "type3/type3_ops.hpp"

namespace nufftmp::detail {

template <typename T>
std::unique_ptr<Engine<T>> make_cuda_engine(const PlanConfig&) {
  throw Error(ErrorCode::NotAvailable,
              "backend = cuda requested, but nufftmp was built without the CUDA engine "
              "(configure with -DNUFFTMP_CUDA=ON)");
}
template std::unique_ptr<Engine<float>> make_cuda_engine<float>(const PlanConfig&);
template std::unique_ptr<Engine<double>> make_cuda_engine<double>(const PlanConfig&);

template <typename T>
std::unique_ptr<Type3Ops<T>> make_type3_ops_cuda(const PlanConfig& cfg) {
  make_cuda_engine<T>(cfg);  // the same NotAvailable
  return nullptr;
}
template std::unique_ptr<Type3Ops<float>> make_type3_ops_cuda<float>(const PlanConfig&);
template std::unique_ptr<Type3Ops<double>> make_type3_ops_cuda<double>(const PlanConfig&);

int cuda_device_count_impl() noexcept { return 0; }

}  // namespace nufftmp::detail
