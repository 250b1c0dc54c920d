#include <chrono>

#include "timer.hpp"

namespace nufftmp::bench {

namespace {

class HostTimer final : public Timer {
 public:
  explicit HostTimer(std::function<void()> sync) : sync_(std::move(sync)) {}
  void start() override {
    if (sync_) sync_();
    t0_ = std::chrono::steady_clock::now();
  }
  double stop_ms() override {
    if (sync_) sync_();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_)
        .count();
  }

 private:
  std::function<void()> sync_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

std::unique_ptr<Timer> make_host_timer(std::function<void()> sync) {
  return std::make_unique<HostTimer>(std::move(sync));
}

}  // namespace nufftmp::bench
