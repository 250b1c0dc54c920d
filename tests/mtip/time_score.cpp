// Timing of the per-generation scores against the truth (issue 14) at a given size, part by
// part, with the scores printed to compare across commits. Not a test: it asserts nothing.
//   time_mtip_score [M] [images] [atoms] [repeats]   (default 81 2000 200 3: the cuFINUFFT
// paper's size with the detector of scripts/device_mtip.sh: 128^2 pixels of 0.5 mm at 6 cm)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <ctime>

#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

namespace {
// The process's CPU time (all threads), ms: on a shared machine steadier than the wall clock.
double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
struct Time {
  double wall = 0, cpu = 0;  // ms
};
// The repeat of the best wall time.
Time best_ms(int repeats, const std::function<void()>& f) {
  double best = 1e300, best_cpu = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_ms();
    f();
    const double wall = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - t0).count();
    if (wall < best) best = wall, best_cpu = cpu_ms() - c0;
  }
  return {best, best_cpu};
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 81;
  const std::int64_t n = argc > 2 ? std::atoll(argv[2]) : 2000;
  const std::int64_t atoms = argc > 3 ? std::atoll(argv[3]) : 200;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  Detector det;  // scripts/device_mtip.sh's: 128^2 pixels of 0.5 mm at 6 cm
  det.nx = det.ny = 128, det.pixel_size = 0.5e-3, det.distance = 0.06;
  const auto pos = pixel_positions_reciprocal(det);
  const double scale = reciprocal_scale(pos);
  const std::int64_t npix = det.nx * det.ny;
  double q_low = 1e300;
  for (std::int64_t p = 0; p < npix; ++p)
    q_low = std::min(q_low, std::sqrt(pos[p] * pos[p] + pos[npix + p] * pos[npix + p] +
                                      pos[2 * npix + p] * pos[2 * npix + p]));
  const TruthModel truth =
      truth_from_density(density_on_grid(clustered_molecule(atoms, M, 1.0, 3), M), M, scale);
  // The reconstruction: the truth in a frame of its own (g), orientations g q_true a little off.
  const Quaternion g = quat_normalized({0.8, 0.35, -0.3, 0.4});
  std::mt19937_64 rng(7);
  std::normal_distribution<double> jitter(0, 0.02);
  std::vector<Quaternion> tru(n), rec(n), prev(n);
  for (std::int64_t i = 0; i < n; ++i) {
    tru[i] = random_quaternion(rng);
    const Quaternion e = quat_normalized({1, jitter(rng), jitter(rng), jitter(rng)});
    rec[i] = quat_multiply(e, quat_multiply(g, tru[i]));
    prev[i] = quat_multiply(quat_normalized({1, jitter(rng), jitter(rng), jitter(rng)}), rec[i]);
  }
  const auto rho = rotate_density(truth.density, M, quat_conjugate(g));
  const auto ac = autocorrelation(rho, M);

  Quaternion frame;
  double agreement = 0, other_agreement = 0, median = 0, change = 0;
  const Time t_frame = best_ms(repeats, [&] {
    for (int pass = 0; pass < 2; ++pass) {  // the score stage's two conventions
      std::vector<Quaternion> t2 = tru;
      if (pass)
        for (auto& q : t2) q = quat_conjugate(q);
      double mom[16] = {0};
      accumulate_rotation_moments(rec, t2, mom);
      const Quaternion f = mean_rotation_from_moments(mom, pass ? &other_agreement : &agreement);
      std::vector<double> err(n);
      for (std::int64_t i = 0; i < n; ++i) err[i] = quat_angle(rec[i], quat_multiply(f, t2[i]));
      std::nth_element(err.begin(), err.begin() + n / 2, err.end());
      if (!pass) frame = f, median = err[n / 2] * 57.29577951308232;
    }
  });
  const Time t_change = best_ms(repeats, [&] { change = median_orientation_change(prev, rec); });
  std::vector<double> rotated, aligned;
  const Time t_rotate = best_ms(repeats, [&] { rotated = rotate_density(rho, M, frame); });
  double corr = 0, icorr = 0, acorr = 0;
  const Time t_align =
      best_ms(repeats, [&] { corr = aligned_correlation(rotated, truth.density, M, &aligned); });
  const Time t_intensity = best_ms(repeats, [&] {
#ifdef TIME_SCORE_TWO_CALLS  // the score stage before truth_intensity_scores
    icorr = truth_intensity_correlation(ac, M, scale, frame, truth, false, q_low);
    acorr = truth_intensity_correlation(ac, M, scale, frame, truth, true, q_low);
#else
    const TruthIntensityScores s = truth_intensity_scores(ac, M, scale, frame, truth, q_low);
    icorr = s.isotropic, acorr = s.anisotropic;
#endif
  });
  std::printf("time_mtip_score: M = %lld, %lld orientations, %lld atoms, %zu truth points, "
              "best of %d (wall ms, cpu ms)\n",
              (long long)M, (long long)n, (long long)atoms, truth.intensity.size(), repeats);
  const auto row = [](const char* name, const Time& t) {
    std::printf("  %-20s %9.2f %9.2f", name, t.wall, t.cpu);
  };
  row("frame_of x2", t_frame);
  std::printf("  (agreement %.6f, other %.6f, median %.4f deg)\n", agreement, other_agreement,
              median);
  row("orientation change", t_change);
  std::printf("  (median %.4f deg)\n", change);
  row("rotate_density", t_rotate);
  std::printf("\n");
  row("aligned_correlation", t_align);
  std::printf("  (correlation %.12f)\n", corr);
  row("intensity scores", t_intensity);
  std::printf("  (intensity %.12f, anisotropic %.12f)\n", icorr, acorr);
  Time total;
  for (const Time* t : {&t_frame, &t_change, &t_rotate, &t_align, &t_intensity})
    total.wall += t->wall, total.cpu += t->cpu;
  row("total", total);
  std::printf("\n");
  MPI_Finalize();
  return 0;
}
