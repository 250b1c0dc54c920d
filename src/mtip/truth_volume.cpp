// The input's ground truth in the form the scores need (truth.hpp), and the intensity score.
#include <cmath>
#include <complex>
#include <sstream>

#include "dist/agree.hpp"
#include "h5/h5_handle.hpp"
#include "lattice_series.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

namespace {

constexpr double kTwoPi = 6.283185307179586476925;

// |k| in lattice units of a reciprocal point y (1/Angstrom): x = scale y = 2 pi k / M.
double lattice_radius(const double* y, double scale, std::int64_t M) {
  return std::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]) * scale * static_cast<double>(M) /
         kTwoPi;
}

// The truth's intensity at the lattice points of the ball |k| <= M/2, from its density.
void sample_lattice(TruthModel& t, std::int64_t M, double scale) {
  const auto I = intensity_from_ac(autocorrelation(t.density, M), M);
  const std::int64_t h = M / 2;
  // The ball's running index of each lattice point (-1 outside), for the mirrors.
  std::vector<std::int64_t> index(static_cast<std::size_t>(M * M * M), -1);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const double r2 = double((i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h));
        if (4 * r2 > double(M * M)) continue;
        index[(k * M + j) * M + i] = static_cast<std::int64_t>(t.intensity.size());
        for (std::int64_t c : {i, j, k}) t.points.push_back(kTwoPi * (c - h) / (M * scale));
        t.intensity.push_back(I[(k * M + j) * M + i]);
        t.radius_group.push_back(static_cast<std::int64_t>(r2));
      }
  // -n is the lattice index 2h - i per axis; for even M the index -h has no mirror.
  t.mirror.assign(t.intensity.size(), -1);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const std::int64_t p = index[(k * M + j) * M + i];
        const std::int64_t i2 = 2 * h - i, j2 = 2 * h - j, k2 = 2 * h - k;
        if (p < 0 || i2 >= M || j2 >= M || k2 >= M) continue;
        t.mirror[p] = index[(k2 * M + j2) * M + i2];
      }
}

// Pearson correlation of a and b with weights w (0 without spread or weight).
double weighted_correlation(const std::vector<double>& a, const std::vector<double>& b,
                            const std::vector<double>& w) {
  const std::size_t n = a.size();
  double sw = 0, mean_a = 0, mean_b = 0;
  for (std::size_t p = 0; p < n; ++p) sw += w[p], mean_a += w[p] * a[p], mean_b += w[p] * b[p];
  if (!(sw > 0)) return 0;
  mean_a /= sw, mean_b /= sw;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const double da = a[p] - mean_a, db = b[p] - mean_b;
    sab += w[p] * da * db, saa += w[p] * da * da, sbb += w[p] * db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

// A real N^3 density centred into M^3 (index i <-> position i - N/2 on both), or empty when
// cropping would cut more than 1e-6 of its mass.
std::vector<double> recentre(const std::vector<double>& v, std::int64_t N, std::int64_t M,
                             double* lost_fraction) {
  std::vector<double> out(static_cast<std::size_t>(M * M * M), 0.0);
  double total = 0, kept = 0;
  for (std::int64_t k = 0; k < N; ++k)
    for (std::int64_t j = 0; j < N; ++j)
      for (std::int64_t i = 0; i < N; ++i) {
        const double x = v[(k * N + j) * N + i];
        total += std::fabs(x);
        const std::int64_t a = i - N / 2 + M / 2, b = j - N / 2 + M / 2, c = k - N / 2 + M / 2;
        if (a < 0 || b < 0 || c < 0 || a >= M || b >= M || c >= M) continue;
        out[(c * M + b) * M + a] = x;
        kept += std::fabs(x);
      }
  *lost_fraction = total > 0 ? 1 - kept / total : 0;
  if (*lost_fraction > 1e-6) out.clear();
  return out;
}

}  // namespace

TruthModel truth_from_density(std::vector<double> density, std::int64_t M, double scale) {
  if (M < 1 || static_cast<std::int64_t>(density.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument,
                "truth_from_density: the density has " + std::to_string(density.size()) +
                    " values, expected M^3 = " + std::to_string(M) + "^3");
  TruthModel t;
  t.density = std::move(density);
  t.kind = TruthModel::Kind::Density;
  sample_lattice(t, M, scale);
  return t;
}

TruthModel read_truth(MPI_Comm comm, const std::string& path, const DataInfo& info, std::int64_t M,
                      double scale, double q_max) {
  TruthModel t;
  dist::detail::agreed(comm, [&] {
    h5::Handle f = h5::open_file(path);
    if (!h5::has_dataset(f.get(), "volume")) return;
    if (!info.has_volume) {
      t.note = "volume is not a cube [N, N, N]: no scores against a truth";
      return;
    }
    const std::int64_t N = info.volume_M;
    h5::Handle d = h5::open_dataset(f.get(), path, "volume");
    const auto dims = h5::dataset_dims(d.get(), path, "volume");
    std::ostringstream note;
    if (info.volume_complex) {
      // A diffraction field on skopi's mesh: |F|^2 at the mesh points inside the detector's
      // ball, every stride-th per axis (the lattice resolves no finer than 2M per axis).
      struct C {
        double r, i;
      };
      h5::Handle mt(H5Tcreate(H5T_COMPOUND, sizeof(C)), H5Tclose);
      H5Tinsert(mt.get(), "r", HOFFSET(C, r), H5T_NATIVE_DOUBLE);
      H5Tinsert(mt.get(), "i", HOFFSET(C, i), H5T_NATIVE_DOUBLE);
      std::vector<C> v(static_cast<std::size_t>(N * N * N));
      h5::read_rows(d.get(), mt.get(), dims, 0, dims[0], v.data(), path, "volume");
      double ext = q_max;
      if (H5Aexists(f.get(), "reciprocal_extent") > 0) {
        const double e = read_attribute(path, "reciprocal_extent") * info.position_unit;
        if (e > 0 && std::isfinite(e)) ext = e;
      }
      const std::int64_t stride = std::max<std::int64_t>(1, N / (2 * M));
      for (std::int64_t a = 0; a < N; a += stride)
        for (std::int64_t b = 0; b < N; b += stride)
          for (std::int64_t c = 0; c < N; c += stride) {
            // skopi's mesh: volume[a][b][c] (C order, a slowest) is at (x_a, y_b, z_c).
            const double lin[3] = {-ext + 2 * ext * a / double(N - 1),
                                   -ext + 2 * ext * b / double(N - 1),
                                   -ext + 2 * ext * c / double(N - 1)};
            if (lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2] > q_max * q_max) continue;
            const C& z = v[(a * N + b) * N + c];
            if (!std::isfinite(z.r) || !std::isfinite(z.i))
              h5::io_fail("'" + path + "': volume has a non-finite value");
            t.points.insert(t.points.end(), lin, lin + 3);
            t.intensity.push_back(z.r * z.r + z.i * z.i);
            // Exact radius on the mesh: coordinates 2a - (N - 1) in units of ext / (N - 1).
            const std::int64_t u = 2 * a - (N - 1), v2 = 2 * b - (N - 1), w2 = 2 * c - (N - 1);
            t.radius_group.push_back(u * u + v2 * v2 + w2 * w2);
          }
      t.kind = TruthModel::Kind::Intensity;
      note << "volume is a complex " << N << "^3 diffraction field: scored as the intensity |F|^2 "
           << "at " << t.intensity.size() << " mesh points (no density score)";
    } else {
      std::vector<double> v(static_cast<std::size_t>(N * N * N));
      h5::read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, dims[0], v.data(), path, "volume");
      h5::check_finite(v.data(), v.size(), 0, path, "volume");
      if (N == M) {
        t.density = std::move(v);
      } else {
        double lost = 0;
        t.density = recentre(v, N, M, &lost);
        if (t.density.empty()) {
          note << "volume is a density of " << N << "^3, the reconstruction " << M
               << "^3: cropping it would cut " << lost * 100
               << "% of its mass, so no scores against it";
          t.note = note.str();
          return;
        }
        note << "volume " << N << "^3 " << (N < M ? "zero-padded" : "cropped") << " to " << M
             << "^3 (same voxel) for the scores";
      }
      t = truth_from_density(std::move(t.density), M, scale);
    }
    t.note = note.str();
  });
  return t;
}

TruthIntensityScores truth_intensity_scores(const std::vector<double>& ac_rec, std::int64_t M,
                                            double scale, const Quaternion& g,
                                            const TruthModel& truth, double q_low) {
  TruthIntensityScores out;
  if (truth.kind == TruthModel::Kind::None || truth.intensity.empty()) return out;
  if (static_cast<std::int64_t>(ac_rec.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument, "truth_intensity_correlation: ac is not M^3");
  const auto m = quat_to_matrix(g);
  const bool mirrored = truth.mirror.size() == truth.intensity.size();
  // The kept points (p: their index in the truth), and those of them evaluated: a point whose
  // mirror -y is a truth point too takes its value from the one of the pair with the larger
  // index (the reconstruction's intensity is even for a real ac: Re F(-x) = Re F(x)), which
  // halves the NUFFT's points.
  std::vector<double> x, y, z, b, radius;
  std::vector<std::int64_t> group, kept, source(truth.intensity.size(), -1);
  for (std::size_t p = 0; p < truth.intensity.size(); ++p) {
    const double* v = truth.points.data() + 3 * p;
    if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < q_low * q_low) continue;
    kept.push_back(static_cast<std::int64_t>(p));
    b.push_back(truth.intensity[p]);
    radius.push_back(lattice_radius(v, scale, M));
    group.push_back(truth.radius_group[p]);
    if (mirrored && truth.mirror[p] > static_cast<std::int64_t>(p)) continue;
    source[p] = static_cast<std::int64_t>(x.size());
    x.push_back(scale * (m[0] * v[0] + m[1] * v[1] + m[2] * v[2]));
    y.push_back(scale * (m[3] * v[0] + m[4] * v[1] + m[5] * v[2]));
    z.push_back(scale * (m[6] * v[0] + m[7] * v[1] + m[8] * v[2]));
  }
  const std::int64_t n = static_cast<std::int64_t>(b.size());
  if (n == 0) return out;
  std::vector<std::complex<double>> f(ac_rec.begin(), ac_rec.end());
  const auto vals = detail::lattice_series(M, +1, f, x, y, z);
  std::vector<double> a(n), w(n);
  for (std::int64_t q = 0; q < n; ++q) {
    const std::int64_t p = kept[q];
    a[q] = vals[source[p] >= 0 ? source[p] : source[truth.mirror[p]]].real();
    w[q] = radius[q] * radius[q];
  }
  out.isotropic = weighted_correlation(a, b, w);
  // Both with each shell's radial profile removed.
  std::int64_t ns = 0;
  for (auto s : group) ns = std::max(ns, s + 1);
  std::vector<double> ma(ns, 0), mb(ns, 0), cnt(ns, 0);
  for (std::int64_t q = 0; q < n; ++q)
    ma[group[q]] += a[q], mb[group[q]] += b[q], cnt[group[q]] += 1;
  for (std::int64_t q = 0; q < n; ++q) {
    const auto s = group[q];
    a[q] -= ma[s] / cnt[s];
    b[q] -= mb[s] / cnt[s];
  }
  out.anisotropic = weighted_correlation(a, b, w);
  return out;
}

double truth_intensity_correlation(const std::vector<double>& ac_rec, std::int64_t M, double scale,
                                   const Quaternion& g, const TruthModel& truth, bool anisotropic,
                                   double q_low) {
  const TruthIntensityScores s = truth_intensity_scores(ac_rec, M, scale, g, truth, q_low);
  return anisotropic ? s.anisotropic : s.isotropic;
}

}  // namespace nufftmp::mtip
