// The CPU engine: OpenMP spreading/interpolation over bin-sorted points, FFTW, deconvolution.
// Life cycle: constructor (fine grid, FFTW plans, deconvolution tables) -> set_points (fold,
// sort, subproblems) -> execute (batches of up to batch_ vectors through the same grids).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <string>
#include <type_traits>

#include "common/checks.hpp"
#include "common/stopwatch.hpp"
#include "cpu/deconvolve.hpp"
#include "cpu/fft_plan.hpp"
#include "cpu/kernel_eval.hpp"
#include "cpu/sorted_points.hpp"
#include "cpu/threads.hpp"
#include "cpu/spread_interp.hpp"
#include "engine.hpp"

namespace nufftmp::detail {

namespace cpu {
namespace {

class Timer {
 public:
  double lap_ms() {
    const double ms = ms_since(t_);
    t_ = Clock::now();
    return ms;
  }

 private:
  Clock::time_point t_ = Clock::now();
};

template <typename T>
class CpuEngine final : public Engine<T> {
 public:
  explicit CpuEngine(const PlanConfig& cfg)
      : cfg_(cfg),
        nthreads_(cfg.opts.nthreads > 0 ? cfg.opts.nthreads : omp_get_max_threads()),
        batch_(choose_batch(cfg, nthreads_)),
        ker_(cfg.kernel, cfg.opts.kernel_eval),
        shape_(make_shape(cfg)) {
    Timer t;
    // spread_interp_only: type 1 spreads straight into the modes, type 2 interpolates from a
    // ghosted copy of them; neither transforms.
    const bool direct = cfg.opts.spread_interp_only;
    if (!direct) deconv_ = Deconvolver<T>(cfg, shape_.row, shape_.pad, nthreads_);
    const double t_deconv = t.lap_ms();
    if (!direct || cfg.type == 2) grid_ = GridBuffer<T>(shape_.cells() * batch_);
    const double t_grid = t.lap_ms();
    if (!direct) {
      std::complex<T>* data = grid_.data() + shape_.pad;
      const int fft_threads = threads_for(10.0 * shape_.cells() * batch_, nthreads_);
      fft_full_ =
          FftPlan<T>(cfg.dim, cfg.nf.data(), shape_.row, batch_, cfg.isign, fft_threads, data);
      const int rest = cfg.ntransf % batch_;
      if (rest != 0)
        fft_rest_ =
            FftPlan<T>(cfg.dim, cfg.nf.data(), shape_.row, rest, cfg.isign, fft_threads, data);
    }
    const double t_fft = t.lap_ms();
    if (cfg.opts.debug > 0)
      std::fprintf(stderr,
                   "nufftmp cpu: %d threads, batch %d, fine grid %.1f MB, %s loops, plan %.2f ms "
                   "(deconvolution factors %.2f, grid %.2f, FFTW plans %.2f)\n",
                   nthreads_, batch_, grid_bytes() / 1e6, cpu_isa_name(),
                   t_deconv + t_grid + t_fft, t_deconv, t_grid, t_fft);
  }

  void set_points(std::int64_t M, const T* x, const T* y, const T* z) override {
    // The coordinates' values are checked by the sort's first pass (no pass of its own).
    check_point_arrays(cfg_.dim, M, x, y, z);
    Timer t;
    // The 3D double spreader wants the finer bins (sorted_points.cpp, kLogBinSizeSmall3D).
    const BinShape shape = cfg_.dim == 3 && cfg_.type == 1 && std::is_same<T, double>::value
                               ? BinShape::Small
                               : BinShape::Default;
    // The packed layout of float points (sorted_points.hpp) for type 2 only: its set_points is
    // 0.7-0.9x the double layout's for either type, but the spreader's decoding of the records
    // cost type 1's execute 4-9% (more than set_points gained: 3D float 1e-5 at 2 threads, M =
    // 1e6, set_points + execute 47.7 against 44.6 ms), while interpolation's execute stayed level
    // (docs/performance.md, "CPU set_points, the packed layout").
    const bool packed = cfg_.type == 2;
    sort_points<T>(cfg_.dim, M, x, y, z, cfg_.nf, cfg_.kernel.w, cfg_.opts.sort, nthreads_,
                   cfg_.opts.debug, pts_, Place::Auto, shape, packed);
    if (cfg_.opts.debug > 0)
      std::fprintf(stderr,
                   "nufftmp cpu: set_points M = %lld: %.2f ms, %zu subproblems (max box %lld "
                   "cells)\n",
                   static_cast<long long>(M), t.lap_ms(), pts_.subproblems.size(),
                   static_cast<long long>(pts_.max_subproblem_cells));
  }

  void execute(std::complex<T>* c, std::complex<T>* f) override {
    const std::int64_t M = pts_.M, nmodes = cfg_.num_modes();
    require_pointer(c, M * cfg_.ntransf, "c (strengths / values)");
    require_pointer(f, nmodes * cfg_.ntransf, "f (modes)");
    double t_spread = 0, t_fft = 0, t_deconv = 0;
    for (int v0 = 0; v0 < cfg_.ntransf; v0 += batch_) {
      const int nvec = std::min(batch_, cfg_.ntransf - v0);
      const FftPlan<T>& fft = nvec == batch_ ? fft_full_ : fft_rest_;
      std::complex<T>* cv = c == nullptr ? nullptr : c + v0 * M;
      std::complex<T>* fv = f + v0 * nmodes;
      Timer t;
      if (cfg_.opts.spread_interp_only) {
        if (cfg_.type == 1) {
          spread<T>(pts_, ker_, shape_, cv, nvec, fv, nthreads_, scratch_);
        } else {
          load_grid<T>(shape_, fv, grid_.data(), nvec, nthreads_);
          interp<T>(pts_, ker_, shape_, grid_.data(), nvec, cv, nthreads_, scratch_);
        }
        t_spread += t.lap_ms();
      } else if (cfg_.type == 1) {
        spread<T>(pts_, ker_, shape_, cv, nvec, grid_.data(), nthreads_, scratch_);
        t_spread += t.lap_ms();
        fft.execute();
        t_fft += t.lap_ms();
        deconv_.grid_to_modes(grid_.data(), fv, nvec, nthreads_);
        t_deconv += t.lap_ms();
      } else {
        deconv_.modes_to_grid(fv, grid_.data(), nvec, nthreads_);
        t_deconv += t.lap_ms();
        fft.execute();
        fill_x_ghosts<T>(shape_, grid_.data(), nvec, nthreads_);
        t_fft += t.lap_ms();
        interp<T>(pts_, ker_, shape_, grid_.data(), nvec, cv, nthreads_, scratch_);
        t_spread += t.lap_ms();
      }
    }
    if (cfg_.opts.debug > 0)
      std::fprintf(stderr, "nufftmp cpu: execute type %d: %s %.2f ms, fft %.2f ms, deconv %.2f ms\n",
                   cfg_.type, cfg_.type == 1 ? "spread" : "interp", t_spread, t_fft, t_deconv);
  }

  void set_points_host(std::int64_t M, const T* x, const T* y, const T* z) override {
    set_points(M, x, y, z);
  }
  void execute_host(std::complex<T>* c, std::complex<T>* f) override { execute(c, f); }
  void synchronize() override {}

  std::int64_t num_points() const override { return pts_.M; }
  Backend backend() const override { return Backend::Cpu; }
  Method method() const override { return Method::Auto; }
  MemorySpace memory_space() const override { return MemorySpace::Host; }
  std::size_t memory_bytes() const override {
    std::size_t b = grid_bytes() + pts_.bytes() + deconv_.bytes();
    for (const auto& s : scratch_) b += s.capacity() * sizeof(T);
    return b;
  }

 private:
  // One vector per thread by default (the batch's FFTs then run as one threaded call), at one
  // fine grid per vector, but no more than kAutoBatchBytes of grids unless the user asks.
  static int choose_batch(const PlanConfig& cfg, int nthreads) {
    if (cfg.opts.maxbatchsize > 0) return std::min(cfg.ntransf, cfg.opts.maxbatchsize);
    constexpr double kAutoBatchBytes = 1 << 30;
    const double grid_bytes = static_cast<double>(cfg.num_fine()) * sizeof(std::complex<T>);
    const int by_memory = static_cast<int>(std::max(1.0, kAutoBatchBytes / grid_bytes));
    return std::max(1, std::min({cfg.ntransf, nthreads, by_memory}));
  }

  static GridShape<T> make_shape(const PlanConfig& cfg) {
    GridShape<T> s;
    s.dim = cfg.dim;
    s.nf = cfg.nf;
    s.pad = cfg.type == 2 ? x_ghosts_for_width(cfg.kernel.w) : 0;
    s.row = cfg.nf[0] + 2 * s.pad;
    return s;
  }

  std::size_t grid_bytes() const {
    return static_cast<std::size_t>(grid_.size()) * sizeof(std::complex<T>);
  }

  const PlanConfig& cfg_;
  int nthreads_;
  int batch_;
  KernelEvaluator<T> ker_;
  GridShape<T> shape_;
  Deconvolver<T> deconv_;
  GridBuffer<T> grid_;
  FftPlan<T> fft_full_, fft_rest_;
  SortedPoints<T> pts_;
  std::vector<std::vector<T>> scratch_;  // per-thread boxes / buffers, reused across executes
};

}  // namespace
}  // namespace cpu

template <typename T>
std::unique_ptr<Engine<T>> make_cpu_engine(const PlanConfig& cfg) {
  try {
    return std::make_unique<cpu::CpuEngine<T>>(cfg);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "CPU engine: out of host memory building the plan (fine grid " +
                    std::to_string(cfg.num_fine()) + " cells x batch, deconvolution tables)");
  }
}

template std::unique_ptr<Engine<float>> make_cpu_engine<float>(const PlanConfig&);
template std::unique_ptr<Engine<double>> make_cpu_engine<double>(const PlanConfig&);

}  // namespace nufftmp::detail
