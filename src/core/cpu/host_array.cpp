#include "cpu/host_array.hpp"

#include <cstdlib>
#include <string>

#include "nufftmp/errors.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace nufftmp::detail::cpu {

namespace {
constexpr std::size_t kHugePage = std::size_t(1) << 21;
}  // namespace

void* host_allocate(std::size_t bytes, const char* what) {
  if (bytes == 0) bytes = 1;
  const bool huge = bytes >= kHugePage;
  // Whole huge pages, so the last one is not shared with another allocation.
  const std::size_t size = huge ? (bytes + kHugePage - 1) / kHugePage * kHugePage : bytes;
  void* p = nullptr;
  if (size < bytes || posix_memalign(&p, huge ? kHugePage : 64, size) != 0 || p == nullptr)
    throw Error(ErrorCode::OutOfMemory, std::string(what) + ": cannot allocate " +
                                            std::to_string(static_cast<double>(bytes) / 1e9) +
                                            " GB of host memory");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where transparent huge pages are off this fails harmlessly.
  if (huge) madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

void host_free(void* p) noexcept { std::free(p); }

}  // namespace nufftmp::detail::cpu
