// The CUDA engine: owns the device buffers, the cuFFT plans and the sorted points of one plan,
// and orders every step of set_points/execute on the plan's stream (Options::cuda_stream) on
// the plan's device (Options::gpu_device), restoring the caller's device on return.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "common/kernel_ft.hpp"
#include "cuda/autotune.hpp"
#include "cuda/bin_sort.hpp"
#include "cuda/bin_stats.hpp"
#include "cuda/cell_order.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/cufft_plan.hpp"
#include "cuda/fine_grid_fft.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "cuda/event_timer.hpp"
#include "cuda/heuristics.hpp"
#include "cuda/index_width.hpp"
#include "cuda/launch.hpp"
#include "cuda/sort_strategy.hpp"
#include "cuda/stage_timer.hpp"
#include "engine.hpp"

namespace nufftmp::detail {

namespace {

// Plans made in this process (the stage timings number them: the first pays CUDA's one-time
// costs).
std::atomic<long> g_plans_made{0};

template <typename T>
class CudaEngine final : public Engine<T> {
 public:
  // Plan stages (timed with NUFFTMP_CUDA_STAGES=1 or debug >= 2): device properties (cached per
  // device), method choice, fine grid, deconvolution factors (on the device), cuFFT plans with
  // a work area from the pool, and the loading of every kernel execute will launch.
  explicit CudaEngine(const PlanConfig& cfg)
      : cfg_(cfg),
        device_(resolve_device(cfg.opts.gpu_device)),
        stream_(static_cast<cudaStream_t>(cfg.opts.cuda_stream)),
        stages_(stage_timing_enabled(cfg.opts.debug)),
        index64_(index64_forced_by_env()),
        scatter_(scatter_from_env(std::getenv("NUFFTMP_CUDA_SCATTER"), cfg.dim, sizeof(T))),
        count_(count_from_env(std::getenv("NUFFTMP_CUDA_COUNT"))),
        bucket_(bucket_knob_from_env(std::getenv("NUFFTMP_CUDA_BUCKET"))),
        bucket_kernels_(bucket_kernels_from_env(std::getenv("NUFFTMP_CUDA_BUCKET_P2"),
                                                std::getenv("NUFFTMP_CUDA_BUCKET_P3"), cfg.dim)),
        layout_(point_layout_from_env(std::getenv("NUFFTMP_CUDA_POINTS"),
                                      default_point_layout(cfg.dim, sizeof(T), cfg.type))) {
    DeviceGuard guard(device_);
    StageTimer tm(stages_, stream_, "plan", ++g_plans_made);
    for (int d = 0; d < cfg_.dim; ++d)
      if (cfg_.nf[d] >= (std::int64_t(1) << 31))
        throw Error(ErrorCode::NotAvailable,
                    "fine grid size " + std::to_string(cfg_.nf[d]) + " along axis " +
                        std::to_string(d) + " is beyond the CUDA engine's per-axis limit 2^31 - 1");
    // The name (for autotune keys and messages) costs a cudaGetDeviceProperties call.
    props_ = query_device(device_, cfg_.opts.autotune || cfg_.opts.debug > 0);
    tm.mark("props");
    choice_ = plan_choice_ = choose_method<T>(cfg_, props_);
    if (!choice_.note.empty() && cfg_.opts.debug > 0) std::cerr << "nufftmp: " << choice_.note << "\n";
    refine_alt_ = refine_alternative<T>(cfg_, props_, plan_choice_);
    if (refine_alt_)  // set_points' bin statistics: allocated once, with the plan
      bin_stats_.allocate(kBinStatsWords, device_, stream_, "the bin statistics");

    const KernelSpec& k = cfg_.kernel;
    coeffs_ = KernelCoeffs<T>{};
    coeffs_.first = kMaxHornerDegree - k.degree;
    // Right-aligned rows (device_views.hpp): horner's row p is row first + p, those below zero.
    const std::size_t offset = static_cast<std::size_t>(coeffs_.first) * k.w;
    for (std::size_t i = 0; i < k.horner.size(); ++i)
      coeffs_.c[offset + i] = static_cast<T>(k.horner[i]);

    for (int d = 0; d < 3; ++d) grid_.nf[d] = static_cast<std::int32_t>(cfg_.nf[d]);
    grid_.total = cfg_.num_fine();
    const int want = cfg_.opts.maxbatchsize > 0 ? cfg_.opts.maxbatchsize : 8;
    batch_ = std::min(want, cfg_.ntransf);
    tm.mark("choose");

    if (!cfg_.opts.spread_interp_only) {  // else the modes are the fine grid: no FFT
      fw_.allocate(static_cast<std::size_t>(batch_) * grid_.total, device_, stream_,
                   "the fine grid");
      tm.mark("fine grid");
      make_deconv_factors();
      tm.mark("deconv factors");
      make_fft_plans(tm);
    }
    load_kernels(tm);
    tm.finish();
    if (cfg_.opts.debug > 0)
      std::cerr << "nufftmp: cuda engine on " << props_.name << ", " << describe_choice()
                << (fft_.pruning() == FftPruning::Columns ? ", FFT pruned to the modes' columns"
                                                         : "")
                << "\n";
  }

  // Stages: see bin_sort.hpp (alloc, count or locate, scan, scatter, unpack or gather,
  // subproblems, sync).
  void set_points(std::int64_t M, const T* x, const T* y, const T* z) override {
    const T* c[3] = {x, y, z};
    check_point_args(M, c);
    DeviceGuard guard(device_);
    points_ready_ = false;
    StageTimer tm(stages_, stream_, "set_points", ++set_points_calls_);
    if (cfg_.opts.autotune) autotune_lookup(M, c);
    else choice_ = plan_choice_;  // a refinement of earlier points does not carry over
    PointPrepRequest req = prep_request(choice_);
    req.timer = &tm;
    const std::int64_t bad = prepare_points<T>(req, M, x, y, z, pts_);
    if (bad >= 0) {
      drop_autotune_state();
      report_bad_point(bad, c);
    }
    if (refine_alt_) refine_choice(M, c, tm);
    order_cells_if_chosen(tm);
    tm.finish();
    points_ready_ = true;
  }

  void execute(std::complex<T>* c, std::complex<T>* f) override {
    const std::int64_t M = pts_.M;
    check_execute_args(c, f);
    DeviceGuard guard(device_);
    if (tune_pending_) autotune_now(c, f);
    // Stage timings of execute (NUFFTMP_CUDA_STAGES=1 or debug >= 2): zero/pad, spread or
    // interp, fft, deconv per batch. Waits for the stream at the end, so timed runs leave it off.
    StageTimer tm(stages_, stream_, "execute", ++execute_calls_);
    for (int v0 = 0; v0 < cfg_.ntransf; v0 += batch_) {
      const int nv = std::min(batch_, cfg_.ntransf - v0);
      run_batch(choice_, pts_, nv, c + std::int64_t(v0) * M,
                f + std::int64_t(v0) * cfg_.num_modes(), &tm);
    }
    tm.finish();
  }

  void set_points_host(std::int64_t M, const T* x, const T* y, const T* z) override {
    const T* h[3] = {x, y, z};
    check_point_args(M, h);
    DeviceGuard guard(device_);
    std::array<DeviceBuffer<T>, 3> dbuf;
    const T* dp[3] = {nullptr, nullptr, nullptr};
    for (int d = 0; d < cfg_.dim; ++d) {
      dbuf[d].allocate(M, device_, stream_, "point coordinates (host copy)");
      if (M > 0)
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dbuf[d].get(), h[d], sizeof(T) * M,
                                         cudaMemcpyHostToDevice, stream_));
      dp[d] = dbuf[d].get();
    }
    set_points(M, dp[0], dp[1], dp[2]);  // a bad point names the same index as the host array
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  void execute_host(std::complex<T>* c, std::complex<T>* f) override {
    const std::int64_t M = pts_.M;
    const std::int64_t nc = M * cfg_.ntransf, nm = cfg_.num_modes() * cfg_.ntransf;
    check_execute_args(c, f);
    DeviceGuard guard(device_);
    DeviceBuffer<std::complex<T>> dc(nc, device_, stream_, "strengths c (host copy)");
    DeviceBuffer<std::complex<T>> df(nm, device_, stream_, "modes f (host copy)");
    const auto h2d = cudaMemcpyHostToDevice, d2h = cudaMemcpyDeviceToHost;
    if (cfg_.type == 1 && nc > 0)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dc.get(), c, sizeof(std::complex<T>) * nc, h2d, stream_));
    if (cfg_.type == 2)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(df.get(), f, sizeof(std::complex<T>) * nm, h2d, stream_));
    execute(dc.get(), df.get());
    if (cfg_.type == 1)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(f, df.get(), sizeof(std::complex<T>) * nm, d2h, stream_));
    if (cfg_.type == 2 && nc > 0)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(c, dc.get(), sizeof(std::complex<T>) * nc, d2h, stream_));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  void synchronize() override {
    DeviceGuard guard(device_);
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  std::int64_t num_points() const override { return pts_.M; }
  Backend backend() const override { return Backend::Cuda; }
  Method method() const override { return choice_.method; }
  MemorySpace memory_space() const override { return MemorySpace::Device; }
  std::size_t memory_bytes() const override {
    return fw_.bytes() + pts_.bytes() + fft_work_.bytes() + factors_.bytes() + bin_stats_.bytes();
  }

 private:
  void check_point_args(std::int64_t M, const T* const* coords) const {
    if (M < 0)
      throw Error(ErrorCode::InvalidArgument, "number of points M = " + std::to_string(M) + " < 0");
    for (int d = 0; d < cfg_.dim; ++d)
      require_pointer(coords[d], M, d == 0 ? "x" : d == 1 ? "y" : "z");
  }

  void check_execute_args(const std::complex<T>* c, const std::complex<T>* f) const {
    require_pointer(c, pts_.M * cfg_.ntransf, "c");
    require_pointer(f, cfg_.num_modes() * cfg_.ntransf, "f");
    if (!points_ready_)
      throw Error(ErrorCode::InvalidArgument, "execute called before set_points");
  }

  // The method at set_points (heuristics.hpp): the sorted points' bin statistics decide between
  // the plan's choice and its alternative. Most alternatives sort alike (no second sort); one
  // with bins of its own (resort) sorts the points again, into buffers that only grow, so a
  // second set_points of as many points allocates nothing. The first sort found any bad point.
  void refine_choice(std::int64_t M, const T* const* coords, StageTimer& tm) {
    const BinStats st =
        measure_bins(pts_.subproblems.get(), pts_.num_subproblems, M, plan_choice_.bins,
                     crowded_bin_count(plan_choice_.bins, M), bin_stats_.get(), stream_);
    tm.mark("bin stats");
    choice_ = prefer_crowded_alternative(st) ? *refine_alt_ : plan_choice_;
    if (choice_.resort) {
      PointPrepRequest req = prep_request(choice_);
      req.timer = &tm;
      if (prepare_points<T>(req, M, coords[0], coords[1], coords[2], pts_) >= 0)
        throw Error(ErrorCode::Internal, "set_points: points rejected on the re-sort");
    }
    if (cfg_.opts.debug > 0)
      std::cerr << "nufftmp: set_points: " << st.nonempty << " of " << st.bins
                << " bins hold points, the fullest " << st.max_count << ", "
                << st.crowded << " of " << st.points << " in crowded bins: " << describe_choice()
                << "\n";
  }

  // Type 2 SM: the points of each subproblem in cell order (cell_order.hpp), where set_points'
  // refinement chose it or NUFFTMP_CUDA_CELL_ORDER=on asks for it. It needs the records layout
  // (the split arrays would need a permutation of their own): without it the plan's choice stays.
  void order_cells_if_chosen(StageTimer& tm) {
    const bool forced = cell_order_mode_ == CellOrderMode::On && cfg_.type == 2 &&
                        choice_.method == Method::SM;
    if (!choice_.cell_order && !forced) return;
    if (!pts_.as_records || pts_.num_subproblems == 0 ||
        !cell_order_fits(cfg_.dim, pts_.w, choice_.bins, choice_.maxsub)) {
      if (choice_.cell_order) choice_ = plan_choice_;
      return;
    }
    order_cells<T>(cfg_.dim, pts_.records.get(), pts_.subproblems.get(), pts_.num_subproblems,
                   choice_.bins, pts_.nf, pts_.w, choice_.maxsub, stream_);
    tm.mark("cell order");
  }

  std::string describe_choice() const {
    return detail::describe_choice(choice_, cfg_.dim) + ", batch " + std::to_string(batch_);
  }

  PointPrepRequest prep_request(const MethodChoice& ch) const {
    PointPrepRequest r{cfg_.dim, cfg_.kernel.w, grid_, ch.bins, ch.method != Method::GM,
                       ch.maxsub, device_, stream_};
    r.force_index64 = index64_;
    r.scatter = scatter_;
    r.count = count_;
    r.bucket = bucket_;
    r.bucket_kernels = bucket_kernels_;
    r.layout = layout_;
    // The pruned type 2 transform runs along x only where the points are (fine_grid_fft.hpp).
    r.band_rows = fft_.band_rows();
    return r;
  }

  // One batch of nv vectors (nv = batch_ or the tail) through spread/FFT/deconvolve (type 1) or
  // pad/FFT/interpolate (type 2), with the configuration ch on the points pts. With
  // spread_interp_only the modes fb are the fine grid: spread into it, or interpolate from it.
  void run_batch(const MethodChoice& ch, const SortedPoints<T>& pts, int nv, std::complex<T>* cb,
                 std::complex<T>* fb, StageTimer* tm = nullptr) {
    const bool direct = cfg_.opts.spread_interp_only;
    auto* fw = direct ? fb : reinterpret_cast<std::complex<T>*>(fw_.get());
    const FineGridFft<T>& fft = (nv == batch_) ? fft_ : fft_tail_;
    const SpreadLaunch<T> a = launch_args(ch, pts, nv, cb, fw);
    auto mark = [tm](const char* stage) {
      if (tm) tm->mark(stage);
    };
    if (cfg_.type == 1) {
      NUFFTMP_CUDA_TRY(cudaMemsetAsync(fw, 0, sizeof(std::complex<T>) * nv * grid_.total, stream_));
      mark("zero");
      switch (ch.method) {
        case Method::SM: spread_sm<T>(a, coeffs_); break;
        case Method::Output: spread_output<T>(a, coeffs_); break;
        default: spread_gm<T>(a, coeffs_); break;
      }
      mark("spread");
      if (direct) return;
      fft.execute(fw, cfg_.isign);
      mark("fft");
      deconvolve_type1<T>(deconv_view(), fw, fb, nv, stream_);
      mark("deconv");
    } else {
      if (!direct) {
        pad_deconvolve_type2<T>(deconv_view(&fft, pts.row_bands), fb, fw, nv, stream_);
        mark("pad");
        fft.execute(fw, cfg_.isign, pts.row_bands);
        mark("fft");
      }
      if (ch.method == Method::SM) interp_sm<T>(a, coeffs_);
      else interp_gm<T>(a, coeffs_);
      mark("interp");
    }
  }

  // Autotune, step 1 (set_points, before the sort): a cached winner for this problem's key
  // becomes the configuration; on a miss, the coordinates are kept (device copy: the caller's
  // arrays need not outlive set_points) so the first execute can sort them per candidate.
  void autotune_lookup(std::int64_t M, const T* const* coords) {
    drop_autotune_state();
    const std::string key = autotune_key(props_.name, cfg_, sizeof(T), M);
    if (key == tuned_key_) return;  // this plan already tuned this size class
    const bool dbg = cfg_.opts.debug > 0;
    std::string note;
    const TuneCache cache = read_tune_cache(autotune_cache_path(), &note);
    if (dbg && !note.empty()) std::cerr << "nufftmp: autotune: " << note << "\n";
    const auto it = cache.find(key);
    if (it != cache.end()) {
      if (const auto ch = choice_of_entry<T>(cfg_, props_, it->second)) {
        choice_ = *ch;
        tuned_key_ = key;
        count_autotune(true);
        if (dbg)
          std::cerr << "nufftmp: autotune: cache hit for " << key << ": " << describe_choice()
                    << "\n";
        return;
      }
      if (dbg)
        std::cerr << "nufftmp: autotune: cached entry for " << key << " no longer applies\n";
    }
    tune_cands_ = tune_candidates<T>(cfg_, props_);
    if (tune_cands_.size() <= 1 || M == 0) return;  // nothing to compare
    for (int d = 0; d < cfg_.dim; ++d) {
      tune_coords_[d].allocate(M, device_, stream_, "point coordinates (autotune copy)");
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(tune_coords_[d].get(), coords[d], sizeof(T) * M,
                                       cudaMemcpyDeviceToDevice, stream_));
    }
    tune_key_ = key;
    tune_pending_ = true;
  }

  // Autotune, step 2 (first execute after a miss): time each candidate on the first batch of
  // the user's input, writing a scratch output (the user's result is computed once, below, by
  // the winner); keep the fastest, re-sort the points for it, store it in the cache.
  void autotune_now(const std::complex<T>* c, const std::complex<T>* f) {
    tune_pending_ = false;
    const std::int64_t M = pts_.M;
    const int nv = std::min(batch_, cfg_.ntransf);
    const bool t1 = cfg_.type == 1;
    const T* xyz[3] = {tune_coords_[0].get(), tune_coords_[1].get(), tune_coords_[2].get()};
    std::string log;
    double best_ms = 0;
    int best = -1;
    try {
      DeviceBuffer<std::complex<T>> scratch(std::size_t(nv) * (t1 ? cfg_.num_modes() : M),
                                            device_, stream_, "the autotune scratch output");
      // The inputs are only read (type 1 reads c, type 2 reads f).
      std::complex<T>* cb = t1 ? const_cast<std::complex<T>*>(c) : scratch.get();
      std::complex<T>* fb = t1 ? scratch.get() : const_cast<std::complex<T>*>(f);
      SortedPoints<T> trial;
      auto time_one = [&](const MethodChoice& ch) {
        if (prepare_points<T>(prep_request(ch), M, xyz[0], xyz[1], xyz[2], trial) >= 0)
          throw Error(ErrorCode::Internal, "autotune: points rejected on re-sort");
        return median_ms_on_stream(stream_, 1, 3, [&] { run_batch(ch, trial, nv, cb, fb); });
      };
      best = pick_fastest(tune_cands_, cfg_.dim, time_one, &log, &best_ms);
    } catch (const Error& e) {
      // No room for the scratch output: tuning is an optimisation, the transform goes on.
      if (e.code() != ErrorCode::OutOfMemory) throw;
      log += "  " + std::string(e.what()) + "\n";
    }
    count_autotune(false);
    const bool dbg = cfg_.opts.debug > 0;
    if (dbg)
      std::cerr << "nufftmp: autotune " << tune_key_ << ", " << tune_cands_.size()
                << " candidates (execute of " << nv << " vector(s), median of 3):\n"
                << log;
    if (best < 0) {
      if (dbg)
        std::cerr << "nufftmp: autotune: no candidate ran; keeping " << describe_choice()
                  << "\n";
      drop_autotune_state();
      return;
    }
    const MethodChoice win = tune_cands_[best];
    if (!sorts_alike(prep_request(choice_), prep_request(win))) {  // pts_ is choice_'s sort
      if (prepare_points<T>(prep_request(win), M, xyz[0], xyz[1], xyz[2], pts_) >= 0)
        throw Error(ErrorCode::Internal, "autotune: points rejected on re-sort");
    }
    choice_ = win;
    tuned_key_ = tune_key_;
    TuneEntry e = entry_of(win);
    e.ms = best_ms;
    std::string note;
    const std::string path = autotune_cache_path();
    if (!store_tune_entry(path, tune_key_, e, &note) && dbg)
      std::cerr << "nufftmp: autotune: " << note << "\n";
    if (dbg)
      std::cerr << "nufftmp: autotune winner: " << describe_choice() << " (" << best_ms
                << " ms), cached in " << path << "\n";
    drop_autotune_state();
  }

  void drop_autotune_state() {
    tune_pending_ = false;
    for (auto& b : tune_coords_) b = DeviceBuffer<T>{};
    tune_cands_.clear();
  }

  SpreadLaunch<T> launch_args(const MethodChoice& ch, const SortedPoints<T>& pts, int nv,
                              std::complex<T>* c, std::complex<T>* fw) const {
    SpreadLaunch<T> a{};
    a.dim = cfg_.dim;
    a.w = cfg_.kernel.w;
    a.pts = pts.view();
    a.grid = grid_;
    a.bins = ch.bins;
    a.subs = pts.subproblems.get();
    a.num_subs = pts.num_subproblems;
    a.points_per_batch = ch.np;
    a.threads = ch.threads;
    a.maxsub = ch.maxsub;
    a.variant = ch.variant;
    a.nvec = nv;
    a.c = c;
    a.fw = fw;
    a.stream = stream_;
    return a;
  }

  // 1 / phihat for the N/2 + 1 frequencies of each axis, computed on the device from the
  // quadrature of common/kernel_ft.hpp (passed as kernel parameters: no host table, no copy).
  void make_deconv_factors() {
    const KernelFtQuadrature q = kernel_ft_quadrature(cfg_.kernel);
    if (q.node.size() > static_cast<std::size_t>(kMaxFtNodes))
      throw Error(ErrorCode::Internal, "kernel Fourier quadrature of " +
                                           std::to_string(q.node.size()) + " nodes exceeds " +
                                           std::to_string(kMaxFtNodes));
    FtQuadratureView qv{};
    qv.n = static_cast<int>(q.node.size());
    for (int i = 0; i < qv.n; ++i) {
      qv.node[i] = q.node[static_cast<std::size_t>(i)];
      qv.weight[i] = q.weight[static_cast<std::size_t>(i)];
    }
    std::int64_t count[3] = {0, 0, 0}, total = 0;
    for (int d = 0; d < cfg_.dim; ++d) total += count[d] = cfg_.N[d] / 2 + 1;
    factors_.allocate(static_cast<std::size_t>(total), device_, stream_,
                      "deconvolution factors");
    T* out[3] = {nullptr, nullptr, nullptr};
    std::int64_t at = 0;
    for (int d = 0; d < cfg_.dim; ++d) {
      out[d] = factors_.get() + at;
      at += count[d];
    }
    compute_deconv_factors<T>(qv, cfg_.dim, out, count, cfg_.nf.data(), stream_);
    for (int d = 0; d < 3; ++d) factor_of_axis_[d] = out[d];
  }

  // The batch plan and, when ntransf is not a multiple of the batch, the tail plan; one work
  // area from the library's pool serves both (they run in order on the plan's stream), instead
  // of cuFFT's cudaMalloc per plan.
  // In 2D the transform may be pruned to the columns of the modes (fft_pruning.hpp;
  // NUFFTMP_CUDA_FFT=whole|pruned for A/B runs and the tests).
  void make_fft_plans(StageTimer& tm) {
    const FftPruning pruning =
        fft_pruning_from_env(std::getenv("NUFFTMP_CUDA_FFT"), cfg_.dim, cfg_.nf, cfg_.N);
    fft_ = FineGridFft<T>(cfg_.dim, cfg_.nf, cfg_.N, batch_, cfg_.type, pruning, device_,
                          stream_, CufftWork::External);
    const int tail = cfg_.ntransf % batch_;
    if (tail != 0)
      fft_tail_ = FineGridFft<T>(cfg_.dim, cfg_.nf, cfg_.N, tail, cfg_.type, pruning, device_,
                                 stream_, CufftWork::External);
    tm.mark("cufft plan");
    // Never a null area (cuFFT without auto-allocation wants one set), even where it needs none.
    const std::size_t work = std::max<std::size_t>(
        {fft_.work_bytes(), fft_tail_.valid() ? fft_tail_.work_bytes() : 0, 256});
    fft_work_.allocate(work, device_, stream_, "the FFT work area");
    fft_.set_work_area(fft_work_.get());
    if (fft_tail_.valid()) fft_tail_.set_work_area(fft_work_.get());
    tm.mark("cufft work area");
  }

  // CUDA loads a kernel at its first use; made here, a plan's first set_points and execute do
  // not pay that. Our kernels: cudaFuncGetAttributes (cheap once loaded). cuFFT's: it loads them
  // at a plan's first execution, so the first plan of each shape on a device transforms its
  // zeroed fine grid once.
  void load_kernels(StageTimer& tm) {
    load_point_kernels<T>(prep_request(choice_));
    tm.mark("load sort kernels");
    load_execute_kernels(choice_);
    tm.mark("load kernels");
    if (refine_alt_) {  // set_points may switch to it
      if (refine_alt_->resort) load_point_kernels<T>(prep_request(*refine_alt_));
      load_execute_kernels(*refine_alt_);
      load_bin_stats_kernel();
      if (refine_alt_->cell_order)
        load_cell_order_kernel<T>(cfg_.dim, cfg_.kernel.w, refine_alt_->bins,
                                  refine_alt_->maxsub);
      tm.mark("load alternative kernels");
    }
    if (cfg_.opts.spread_interp_only) return;  // no deconvolution, no FFT
    load_deconvolve_kernel<T>(cfg_.type);
    tm.mark("load deconvolution kernel");
    if (first_fft_of_shape()) {
      NUFFTMP_CUDA_TRY(cudaMemsetAsync(fw_.get(), 0, fw_.bytes(), stream_));
      fft_.warm_up(fw_.get(), cfg_.isign);
      if (fft_tail_.valid()) fft_tail_.warm_up(fw_.get(), cfg_.isign);
      tm.mark("cufft first run");
    }
  }

  void load_execute_kernels(const MethodChoice& ch) {
    SpreadLaunch<T> a = launch_args(ch, pts_, batch_, nullptr,
                                    reinterpret_cast<std::complex<T>*>(fw_.get()));
    a.pts.M = 1;
    a.num_subs = 1;
    a.load_only = true;
    // The layout set_points will write (sorted_layout, 32-bit indices) picks the kernels; a
    // stand-in records pointer selects them, nothing is launched.
    static const unsigned stand_in = 0;
    const bool records = ch.method != Method::GM &&
                         sorted_layout(layout_, scatter_, false) == PointLayout::Records;
    a.pts.records = records ? &stand_in : nullptr;
    if (cfg_.type == 1) {
      switch (ch.method) {
        case Method::SM: spread_sm<T>(a, coeffs_); break;
        case Method::Output: spread_output<T>(a, coeffs_); break;
        default: spread_gm<T>(a, coeffs_); break;
      }
    } else if (ch.method == Method::SM) {
      interp_sm<T>(a, coeffs_);
    } else {
      interp_gm<T>(a, coeffs_);
    }
  }

  bool first_fft_of_shape() const {
    static std::mutex m;
    static std::set<std::array<std::int64_t, 8>> seen;
    const std::array<std::int64_t, 8> key{device_, std::int64_t(sizeof(T)), cfg_.dim, cfg_.nf[0],
                                          cfg_.nf[1], cfg_.nf[2], batch_,
                                          cfg_.ntransf % batch_};
    std::lock_guard<std::mutex> lock(m);
    return seen.insert(key).second;
  }

  // fft, bands: a type 2 batch's transform and the bands of rows its points touch; the pad
  // then writes whole only the rows that the transform's pass along x reads.
  DeconvView<T> deconv_view(const FineGridFft<T>* fft = nullptr,
                            std::uint64_t bands = ~std::uint64_t(0)) const {
    DeconvView<T> v{};
    if (fft != nullptr && fft->band_rows() > 0) {
      v.band_rows = fft->band_rows();
      v.whole_bands = fft->bands_transformed(bands);
      v.run = pruned_column_run(cfg_.N[0]);
    }
    for (int d = 0; d < 3; ++d) {
      v.factor[d] = factor_of_axis_[d];
      v.N[d] = cfg_.N[d];
    }
    v.modeord = cfg_.opts.modeord;
    v.grid = grid_;
    return v;
  }

  [[noreturn]] void report_bad_point(std::int64_t j, const T* const* coords) {
    points_ready_ = false;
    const char axes[3] = {'x', 'y', 'z'};
    for (int d = 0; d < cfg_.dim; ++d) {
      T v{};
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&v, coords[d] + j, sizeof(T), cudaMemcpyDeviceToHost, stream_));
      NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
      if (!in_fold_range(v))
        throw Error(ErrorCode::BadPoints, bad_point_message(axes[d], j, static_cast<double>(v)));
    }
    throw Error(ErrorCode::Internal, "point " + std::to_string(j) + " flagged bad on the device");
  }

  const PlanConfig& cfg_;
  int device_;
  cudaStream_t stream_;
  bool stages_;   // stage timings on
  bool index64_;  // NUFFTMP_CUDA_INDEX64: 64-bit sort indices at any M (tests)
  ScatterKind scatter_;  // the sort's variants (sort_strategy.hpp): NUFFTMP_CUDA_SCATTER,
  CountKind count_;      // NUFFTMP_CUDA_COUNT, read when the plan is made
  BucketKnob bucket_;    // NUFFTMP_CUDA_BUCKET (tests)
  BucketKernels bucket_kernels_;  // NUFFTMP_CUDA_BUCKET_P2 / _P3 (A/B runs)
  PointLayout layout_;            // default_point_layout, or NUFFTMP_CUDA_POINTS (A/B runs)
  CellOrderMode cell_order_mode_ = cell_order_from_env();  // NUFFTMP_CUDA_CELL_ORDER
  long set_points_calls_ = 0;
  long execute_calls_ = 0;
  DeviceProps props_;
  MethodChoice choice_;       // what execute runs: the plan's, set_points' refinement, autotune's
  MethodChoice plan_choice_;  // the heuristics' choice when the plan was made
  std::optional<MethodChoice> refine_alt_;  // what set_points may switch to (heuristics.hpp)
  DeviceBuffer<unsigned long long> bin_stats_;
  KernelCoeffs<T> coeffs_{};
  GridView grid_{};
  int batch_ = 1;
  DeviceBuffer<std::complex<T>> fw_;
  DeviceBuffer<T> factors_;              // every axis's 1/phihat, back to back
  const T* factor_of_axis_[3] = {nullptr, nullptr, nullptr};
  DeviceBuffer<unsigned char> fft_work_;  // outlives the plans below
  FineGridFft<T> fft_, fft_tail_;
  SortedPoints<T> pts_;
  bool points_ready_ = false;  // set_points succeeded (M = 0 is a valid point set)
  // Autotune: the key choice_ was tuned (or read from the cache) for; a pending timing run.
  std::string tuned_key_, tune_key_;
  bool tune_pending_ = false;
  std::vector<MethodChoice> tune_cands_;
  std::array<DeviceBuffer<T>, 3> tune_coords_;
};

}  // namespace

void require_cuda_device() {
  if (cuda_device_count_impl() == 0)
    throw Error(ErrorCode::NotAvailable, "backend = cuda requested, but no CUDA device is visible");
}

template <typename T>
std::unique_ptr<Engine<T>> make_cuda_engine(const PlanConfig& cfg) {
  require_cuda_device();
  return std::make_unique<CudaEngine<T>>(cfg);
}

int cuda_device_count_impl() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

template std::unique_ptr<Engine<float>> make_cuda_engine<float>(const PlanConfig&);
template std::unique_ptr<Engine<double>> make_cuda_engine<double>(const PlanConfig&);

}  // namespace nufftmp::detail
