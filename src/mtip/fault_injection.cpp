// Fault injection for tests (fault_injection.hpp).
#include "fault_injection.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::mtip::detail {

namespace {
std::atomic<int> current_generation{0};
}  // namespace

void set_fault_generation(int generation) { current_generation = generation; }

void fault_point(const char* point, int rank) {
  const char* spec = std::getenv("NUFFTMP_MTIP_INJECT_FAILURE");
  if (!spec || !*spec) return;
  // <point>@<rank>[:<generation>]
  const std::string s(spec);
  const auto at = s.find('@');
  if (at == std::string::npos || s.compare(0, at, point) != 0 || std::strlen(point) != at) return;
  const auto colon = s.find(':', at + 1);
  const int want_rank = std::atoi(s.substr(at + 1, colon - at - 1).c_str());
  if (want_rank != rank) return;
  if (colon != std::string::npos && std::atoi(s.substr(colon + 1).c_str()) != current_generation)
    return;
  throw Error(ErrorCode::Internal, std::string("injected failure at ") + point + " on rank " +
                                       std::to_string(rank) + " (NUFFTMP_MTIP_INJECT_FAILURE=" +
                                       s + ")");
}

}  // namespace nufftmp::mtip::detail
