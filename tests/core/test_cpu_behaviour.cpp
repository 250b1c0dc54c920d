// The CPU engine's behaviour beyond the accuracy grid: odd/even/unit sizes, M = 0 and 1,
// adjointness, batches, re-set points, options (upsampfac 1.25, direct kernel evaluation,
// threads, no sorting), folding, larger and clustered problems, the query functions.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <thread>
#include <vector>

#include "common/reference_check.hpp"
#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {
namespace {


template <typename T>
double check(int type, const std::vector<std::int64_t>& N, std::int64_t M, double tol,
             const Options& opts, const std::string& salt, Dist dist = Dist::Uniform,
             int isign = 1) {
  auto rng = make_rng(salt_of(salt));
  Plan<T> plan(type, N, isign, 1, tol, opts);
  const auto pts = make_points<T>(dist, plan.dim(), M, plan.fine_grid(), rng);
  return check_transform(plan, opts.modeord, pts, rng, 500).rel_err;
}

struct SizeCase {
  std::vector<std::int64_t> N;
  std::int64_t M;
};

class OddEvenUnitSizes : public ::testing::TestWithParam<SizeCase> {};

TEST_P(OddEvenUnitSizes, BothTypesMatchDirectSum) {
  const auto& sc = GetParam();
  for (int type : {1, 2})
    for (int modeord : {0, 1}) {
      Options o = cpu_options();
      o.modeord = modeord;
      std::string name = "sizes";
      for (auto n : sc.N) name += "_" + std::to_string(n);
      name += "_M" + std::to_string(sc.M) + "_t" + std::to_string(type);
      EXPECT_LE(check<double>(type, sc.N, sc.M, 1e-9, o, name), 1e-8) << name;
      EXPECT_LE(check<float>(type, sc.N, sc.M, 1e-5, o, name), 1e-4) << name;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, OddEvenUnitSizes,
    ::testing::Values(SizeCase{{1}, 50}, SizeCase{{2}, 50}, SizeCase{{3}, 50},
                      SizeCase{{64}, 200}, SizeCase{{65}, 200}, SizeCase{{64}, 1},
                      SizeCase{{1, 16}, 100}, SizeCase{{17, 1}, 100}, SizeCase{{1, 1}, 20},
                      SizeCase{{9, 10}, 1}, SizeCase{{1, 1, 8}, 50}, SizeCase{{5, 1, 3}, 60},
                      SizeCase{{6, 7, 1}, 60}, SizeCase{{1, 1, 1}, 10}, SizeCase{{4, 5, 6}, 1}));

TEST(CpuBehaviour, NoPointsGiveZeroModesAndTouchNoValues) {
  for (int dim : {1, 2, 3}) {
    std::vector<std::int64_t> N(dim, 8);
    Plan<double> p1(1, N, 1, 2, 1e-6, cpu_options());
    p1.set_points(0, nullptr, nullptr, nullptr);
    EXPECT_EQ(p1.num_points(), 0);
    std::vector<std::complex<double>> f(2 * p1.num_modes(), {3.0, 4.0});
    p1.execute(nullptr, f.data());
    for (const auto& v : f) EXPECT_EQ(v, std::complex<double>(0, 0));

    Plan<float> p2(2, N, -1, 1, 1e-4, cpu_options());
    p2.set_points(0, nullptr, nullptr, nullptr);
    std::vector<std::complex<float>> f2(p2.num_modes(), {1.0f, 1.0f});
    p2.execute(nullptr, f2.data());  // nothing to write, nothing read past f
  }
}

// Not silent zeros: the same error as on the CUDA engine (Plan's rule, see test_plan_rules),
// and f is left as it was.
TEST(CpuBehaviour, ExecuteBeforeSetPointsIsAnError) {
  Plan<double> p(1, {10, 10}, 1, 1, 1e-6, cpu_options());
  std::vector<std::complex<double>> f(p.num_modes(), {1.0, 1.0});
  EXPECT_THROW(p.execute(nullptr, f.data()), Error);
  for (const auto& v : f) EXPECT_EQ(v, std::complex<double>(1, 1));
  p.set_points(0, nullptr);  // zero points: the empty transform
  p.execute(nullptr, f.data());
  for (const auto& v : f) EXPECT_EQ(v, std::complex<double>(0, 0));
}

template <typename T>
void adjointness(int dim, double tol, double bound) {
  auto rng = make_rng(salt_of("adjoint" + std::to_string(dim) + std::to_string(sizeof(T))));
  const std::vector<std::int64_t> N = dim == 1 ? std::vector<std::int64_t>{40}
                                      : dim == 2 ? std::vector<std::int64_t>{20, 13}
                                                 : std::vector<std::int64_t>{8, 9, 10};
  const std::int64_t M = 500;
  for (int isign : {1, -1}) {
    Plan<T> t1(1, N, isign, 1, tol, cpu_options());
    Plan<T> t2(2, N, -isign, 1, tol, cpu_options());
    const auto pts = uniform_points<T>(dim, M, rng);
    t1.set_points(M, pts.x(), pts.y(), pts.z());
    t2.set_points(M, pts.x(), pts.y(), pts.z());
    auto c = random_complex<T>(M, rng);
    auto f = random_complex<T>(t1.num_modes(), rng);
    std::vector<std::complex<T>> Ac(t1.num_modes()), Bf(M);
    t1.execute(c.data(), Ac.data());
    t2.execute(Bf.data(), f.data());
    // <A c, f> = <c, A^H f>, and type 2 with the opposite sign is A^H (spreading and
    // interpolation use the same kernel; FFT of opposite sign is the adjoint).
    const auto lhs = dot(Ac, f), rhs = dot(c, Bf);
    double nAc = 0, nf = 0;
    for (auto& v : Ac) nAc += std::norm(std::complex<double>(v));
    for (auto& v : f) nf += std::norm(std::complex<double>(v));
    EXPECT_LE(std::abs(lhs - rhs) / std::sqrt(nAc * nf), bound) << dim << "D isign " << isign;
  }
}

TEST(CpuBehaviour, Type2WithOppositeSignIsTheAdjointOfType1) {
  for (int dim : {1, 2, 3}) {
    adjointness<double>(dim, 1e-9, 1e-13);
    adjointness<float>(dim, 1e-4, 1e-5);
  }
}

template <typename T>
void batches_equal_singles(int type, int dim, int maxbatch, double bound) {
  const int ntransf = 5;
  const std::vector<std::int64_t> N(dim, dim == 3 ? 10 : 24);
  auto rng = make_rng(salt_of("batch" + std::to_string(type * 100 + dim * 10 + maxbatch)));
  const std::int64_t M = 700;
  const auto pts = uniform_points<T>(dim, M, rng);
  Options o = cpu_options();
  o.maxbatchsize = maxbatch;
  Plan<T> many(type, N, 1, ntransf, 1e-6, o);
  Plan<T> one(type, N, 1, 1, 1e-6, cpu_options());
  many.set_points(M, pts.x(), pts.y(), pts.z());
  one.set_points(M, pts.x(), pts.y(), pts.z());
  const std::int64_t nm = one.num_modes();
  auto c = random_complex<T>(M * ntransf, rng);
  auto f = random_complex<T>(nm * ntransf, rng);
  if (type == 1) {
    std::vector<std::complex<T>> fb(nm * ntransf), fs(nm);
    many.execute(c.data(), fb.data());
    for (int v = 0; v < ntransf; ++v) {
      one.execute(c.data() + v * M, fs.data());
      EXPECT_LE(rel_l2(fb.data() + v * nm, fs.data(), nm), bound) << "vector " << v;
    }
  } else {
    std::vector<std::complex<T>> cb(M * ntransf), cs(M);
    many.execute(cb.data(), f.data());
    for (int v = 0; v < ntransf; ++v) {
      one.execute(cs.data(), f.data() + v * nm);
      EXPECT_LE(rel_l2(cb.data() + v * M, cs.data(), M), bound) << "vector " << v;
    }
  }
}

TEST(CpuBehaviour, BatchesEqualSingleTransforms) {
  for (int type : {1, 2})
    for (int dim : {1, 2, 3})
      for (int maxbatch : {0, 1, 2, 5, 7}) {
        SCOPED_TRACE("type " + std::to_string(type) + " dim " + std::to_string(dim) +
                     " maxbatchsize " + std::to_string(maxbatch));
        batches_equal_singles<double>(type, dim, maxbatch, 1e-14);
        batches_equal_singles<float>(type, dim, maxbatch, 1e-6);
      }
}

TEST(CpuBehaviour, PointsResetOnTheSamePlanMatchAFreshPlan) {
  for (int type : {1, 2}) {
    auto rng = make_rng(salt_of("reset" + std::to_string(type)));
    Plan<double> reused(type, {30, 20}, -1, 1, 1e-8, cpu_options());
    for (std::int64_t M : {400, 1000, 3, 0, 250}) {
      const auto pts = uniform_points<double>(2, M, rng);
      reused.set_points(M, pts.x(), pts.y());
      Plan<double> fresh(type, {30, 20}, -1, 1, 1e-8, cpu_options());
      fresh.set_points(M, pts.x(), pts.y());
      auto c = random_complex<double>(M, rng);
      auto f = random_complex<double>(fresh.num_modes(), rng);
      if (type == 1) {
        std::vector<std::complex<double>> a(fresh.num_modes()), b(fresh.num_modes());
        reused.execute(c.data(), a.data());
        fresh.execute(c.data(), b.data());
        EXPECT_LE(rel_l2(a.data(), b.data(), fresh.num_modes()), 1e-15) << "M " << M;
      } else {
        std::vector<std::complex<double>> a(M), b(M);
        reused.execute(a.data(), f.data());
        fresh.execute(b.data(), f.data());
        EXPECT_LE(rel_l2(a.data(), b.data(), M), 1e-15) << "M " << M;
      }
      EXPECT_EQ(reused.num_points(), M);
    }
  }
}

TEST(CpuBehaviour, UpsampfacOneAndAQuarter) {
  Options o = cpu_options();
  o.upsampfac = 1.25;
  for (int dim : {1, 2, 3})
    for (int type : {1, 2})
      for (double tol : {1e-3, 1e-6, 1e-9}) {
        const std::vector<std::int64_t> N(dim, dim == 3 ? 9 : 20);
        const std::string name = "sigma125_" + std::to_string(dim) + std::to_string(type) +
                                 std::to_string(tol);
        EXPECT_LE(check<double>(type, N, 300, tol, o, name), 10 * tol) << name;
        EXPECT_LE(check<double>(type, N, 300, tol, o, name, Dist::Clustered), 10 * tol) << name;
      }
  Plan<float> p(1, {100}, 1, 1, 1e-4, o);
  EXPECT_DOUBLE_EQ(p.upsampfac(), 1.25);
  EXPECT_GE(p.fine_grid()[0], 125);
  EXPECT_LT(p.fine_grid()[0], 200);
  EXPECT_LE(check<float>(2, {100}, 300, 1e-4, o, "sigma125f"), 1e-3);
}

// Float coordinates on a large fine grid: a float grid coordinate would keep only a few bits
// for the position within a cell (errors grew like nf * eps: 2.4e-3 at N = 1e5 before).
TEST(CpuBehaviour, FloatAccuracyHoldsOnLargeGrids) {
  for (int type : {1, 2}) {
    const std::string name = "float_large_N_type" + std::to_string(type);
    EXPECT_LE(check<float>(type, {400000}, 2000, 1e-5, cpu_options(), name), 1e-4) << name;
  }
}

TEST(CpuBehaviour, DirectKernelEvaluation) {
  Options o = cpu_options();
  o.kernel_eval = KernelEval::Direct;
  for (int dim : {1, 2, 3})
    for (int type : {1, 2}) {
      const std::vector<std::int64_t> N(dim, dim == 3 ? 8 : 18);
      const std::string name = "direct" + std::to_string(dim * 10 + type);
      EXPECT_LE(check<double>(type, N, 300, 1e-10, o, name), 1e-9) << name;
      EXPECT_LE(check<float>(type, N, 300, 1e-5, o, name), 1e-4) << name;
    }
}

// Same points and data through plans with different options: results agree to rounding.
template <typename T>
std::vector<std::complex<T>> run_with(const Options& o, int type, int dim, std::int64_t M,
                                      Dist dist) {
  auto rng = make_rng(salt_of("opts" + std::to_string(type * 10 + dim)));
  const std::vector<std::int64_t> N(dim, dim == 3 ? 16 : 48);
  Plan<T> p(type, N, 1, 1, 1e-7, o);
  const auto pts = make_points<T>(dist, dim, M, p.fine_grid(), rng);
  p.set_points(M, pts.x(), pts.y(), pts.z());
  auto c = random_complex<T>(M, rng);
  auto f = random_complex<T>(p.num_modes(), rng);
  if (type == 1) {
    p.execute(c.data(), f.data());
    return f;
  }
  p.execute(c.data(), f.data());
  return c;
}

TEST(CpuBehaviour, ThreadsAndSortingDoNotChangeResults) {
  for (int type : {1, 2})
    for (int dim : {1, 2, 3})
      for (Dist dist : {Dist::Uniform, Dist::Clustered}) {
        const std::int64_t M = 30000;
        const auto ref = run_with<double>(cpu_options(), type, dim, M, dist);
        Options one = cpu_options();
        one.nthreads = 1;
        Options many = cpu_options();
        many.nthreads = 7;  // more threads than cores: exercises the atomic add-back
        Options unsorted = cpu_options();
        unsorted.sort = false;
        for (const Options& o : {one, many, unsorted}) {
          const auto r = run_with<double>(o, type, dim, M, dist);
          EXPECT_LE(rel_l2(r.data(), ref.data(), static_cast<std::int64_t>(r.size())), 1e-13)
              << "type " << type << " dim " << dim << " " << dist_name(dist) << " nthreads "
              << o.nthreads << " sort " << o.sort;
        }
      }
}

TEST(CpuBehaviour, CoordinatesAreFoldedFromMinusThreePiToThreePi) {
  for (int type : {1, 2})
    for (int dim : {1, 2, 3}) {
      auto rng = make_rng(salt_of("fold" + std::to_string(type * 10 + dim)));
      const std::vector<std::int64_t> N(dim, dim == 3 ? 10 : 30);
      Plan<double> p(type, N, 1, 1, 1e-9, cpu_options());
      auto pts = uniform_points<double>(dim, 400, rng, -3 * kPi, 3 * kPi);
      // The edges themselves.
      pts.xyz[0][0] = -3 * kPi;
      pts.xyz[0][1] = std::nextafter(3 * kPi, 0.0);
      pts.xyz[0][2] = -kPi;
      pts.xyz[0][3] = kPi;
      pts.xyz[0][4] = 0.0;
      pts.xyz[dim - 1][5] = std::nextafter(kPi, 0.0);
      // The oracle sees the unfolded coordinates: exp(i k x) is periodic, so it must agree.
      EXPECT_LE(check_transform(p, 0, pts, rng, 400).rel_err, 1e-8) << type << " " << dim;
    }
}

TEST(CpuBehaviour, LargerUniformAndClusteredProblems) {
  for (int type : {1, 2}) {
    for (Dist dist : {Dist::Uniform, Dist::Clustered}) {
      const std::string name = std::string("large") + dist_name(dist) + std::to_string(type);
      auto rng = make_rng(salt_of(name));
      Plan<double> p2(type, {128, 96}, 1, 1, 1e-9, cpu_options());
      const auto pts2 = make_points<double>(dist, 2, 60000, p2.fine_grid(), rng);
      EXPECT_LE(check_transform(p2, 0, pts2, rng, 200).rel_err, 1e-8) << name;
      Plan<float> p3(type, {32, 40, 24}, -1, 1, 1e-5, cpu_options());
      const auto pts3 = make_points<float>(dist, 3, 60000, p3.fine_grid(), rng);
      EXPECT_LE(check_transform(p3, 0, pts3, rng, 200).rel_err, 1e-4) << name;
    }
  }
}

TEST(CpuBehaviour, PlansOnSeveralThreadsAtOnce) {
  // Plans built and run concurrently (FFTW planning is serialized inside) give the answers
  // they give alone.
  const int nthreads = 4;
  std::vector<std::vector<std::complex<double>>> alone(nthreads), together(nthreads);
  auto job = [](int i, std::vector<std::complex<double>>& out) {
    auto rng = make_rng(salt_of("threads" + std::to_string(i)));
    Options o;
    o.backend = Backend::Cpu;
    o.nthreads = 1 + i % 2;
    Plan<double> p(1 + i % 2, {20 + i, 16}, 1, 2, 1e-7, o);
    const auto pts = uniform_points<double>(2, 3000, rng);
    p.set_points(3000, pts.x(), pts.y());
    auto c = random_complex<double>(2 * 3000, rng);
    auto f = random_complex<double>(2 * p.num_modes(), rng);
    p.execute(c.data(), f.data());
    out = p.type() == 1 ? f : c;
  };
  for (int i = 0; i < nthreads; ++i) job(i, alone[i]);
  std::vector<std::thread> threads;
  for (int i = 0; i < nthreads; ++i) threads.emplace_back(job, i, std::ref(together[i]));
  for (auto& t : threads) t.join();
  for (int i = 0; i < nthreads; ++i)
    EXPECT_LE(rel_l2(together[i].data(), alone[i].data(),
                     static_cast<std::int64_t>(alone[i].size())), 1e-15) << "plan " << i;
}

TEST(CpuBehaviour, QueriesDescribeTheCpuPlan) {
  Plan<float> p(2, {32, 17, 5}, -1, 3, 1e-5, cpu_options());
  EXPECT_EQ(p.backend(), Backend::Cpu);
  EXPECT_EQ(p.memory_space(), MemorySpace::Host);
  EXPECT_EQ(p.method(), Method::Auto);
  EXPECT_EQ(p.type(), 2);
  EXPECT_EQ(p.dim(), 3);
  EXPECT_EQ(p.isign(), -1);
  EXPECT_EQ(p.ntransf(), 3);
  EXPECT_EQ(p.num_modes(), 32 * 17 * 5);
  EXPECT_GE(p.kernel_width(), 6);
  EXPECT_GT(p.memory_bytes(), static_cast<std::size_t>(p.fine_grid()[0] * p.fine_grid()[1] *
                                                       p.fine_grid()[2] * 8));
  EXPECT_NE(p.describe().find("cpu"), std::string::npos);
  // A moved plan still works.
  Plan<float> q = std::move(p);
  auto rng = make_rng(1);
  const auto pts = uniform_points<float>(3, 100, rng);
  q.set_points(100, pts.x(), pts.y(), pts.z());
  EXPECT_EQ(q.num_points(), 100);
}

}  // namespace
}  // namespace nufftmp::test
