// The simulator's pieces: molecules that fit the lattice, their density, PDB records, the
// diffraction through the NUFFT against a direct sum, and Poisson noise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

TEST(MtipSimulate, MoleculesFitTheLatticeAndCarryTheirMass) {
  const std::int64_t M = 25;
  const double sigma = 0.8, R = (M - 1) / 4.0 - 3 * sigma;
  for (const Molecule& mol : {random_molecule(30, M, sigma, 1), clustered_molecule(30, M, sigma, 1)}) {
    EXPECT_EQ(mol.atoms.size(), 30u);
    double wsum = 0;
    for (std::size_t a = 0; a < mol.atoms.size(); ++a) {
      const auto& p = mol.atoms[a];
      EXPECT_LE(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), R + 1e-12);
      wsum += mol.weight[a];
    }
    const auto rho = density_on_grid(mol, M);
    double mass = 0;
    for (double v : rho) mass += v;
    // A lattice sum of a Gaussian of sigma 0.8 is its integral to within about 1e-3; atoms are
    // cut at 3 sigma, which keeps P(chi_3 < 3) = erf(3/sqrt 2) - 3 sqrt(2/pi) e^-4.5 of it.
    const double kept = std::erf(3 / std::sqrt(2.0)) - 3 * std::sqrt(2 / M_PI) * std::exp(-4.5);
    EXPECT_NEAR(mass, kept * wsum * std::pow(2 * M_PI * sigma * sigma, 1.5), 0.005 * mass);
    // The autocorrelation fits: nothing on the lattice's outer faces.
    const auto ac = autocorrelation(rho, M);
    double face = 0, peak = ac[(M / 2 * M + M / 2) * M + M / 2];
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) face = std::max(face, std::fabs(ac[j * M + i]));
    EXPECT_LT(face, 1e-12 * peak);
  }
  EXPECT_THROW(random_molecule(10, 9, 1.0, 1), nufftmp::Error);  // too small for the atoms
}

TEST(MtipSimulate, PdbRecords) {
  const std::string path = ::testing::TempDir() + "nufftmp_mtip_" + std::to_string(getpid()) + ".pdb";
  {
    std::ofstream f(path);
    f << "HEADER    TEST\n"
      << "ATOM      1  N   ALA A   1       1.000   2.000   3.000  1.00  0.00           N\n"
      << "ATOM      2  CA  ALA A   1       3.000   2.000   3.000  1.00  0.00           C\n"
      << "HETATM    3  O   HOH A   2       2.000   5.000   3.000  1.00  0.00           O\n"
      << "END\n";
  }
  const Molecule mol = pdb_molecule(path, 0.5, 33, 1.0);
  ASSERT_EQ(mol.atoms.size(), 3u);
  EXPECT_EQ(mol.weight[0], 7);
  EXPECT_EQ(mol.weight[1], 6);
  EXPECT_EQ(mol.weight[2], 8);
  // Centred at the centroid (2, 3, 3) and in voxels of 0.5 A.
  EXPECT_NEAR(mol.atoms[0][0], -2.0, 1e-12);
  EXPECT_NEAR(mol.atoms[2][1], 4.0, 1e-12);
  EXPECT_THROW(pdb_molecule(path, 0.05, 33, 1.0), nufftmp::Error);  // 10x finer: does not fit
  EXPECT_THROW(pdb_molecule(path + ".none", 0.5, 33, 1.0), nufftmp::Error);
  std::remove(path.c_str());
}

TEST(MtipSimulate, DiffractionEqualsDirectSum) {
  const std::int64_t M = 13;
  const auto rho = density_on_grid(random_molecule(8, M, 0.7, 3), M);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(-M_PI, M_PI);
  std::vector<double> x(20), y(20), z(20);
  for (int j = 0; j < 20; ++j) x[j] = u(rng), y[j] = u(rng), z[j] = u(rng);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  const auto I = diffraction_intensities<double>(rho, M, 20, x.data(), y.data(), z.data(), 1e-10, opts);
  for (int j = 0; j < 20; ++j) {
    std::complex<double> F = 0;
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t jj = 0; jj < M; ++jj)
        for (std::int64_t i = 0; i < M; ++i)
          F += rho[(k * M + jj) * M + i] *
               std::exp(std::complex<double>(0, -((i - M / 2) * x[j] + (jj - M / 2) * y[j] + (k - M / 2) * z[j])));
    EXPECT_NEAR(I[j], std::norm(F), 1e-8 * std::norm(F) + 1e-10);
  }
}

TEST(MtipSimulate, PoissonNoiseHasTheRightMean) {
  std::vector<float> v(20000, 4.0f);
  v[0] = -1.0f;
  std::mt19937_64 rng(6);
  add_poisson_noise(v, rng);
  EXPECT_EQ(v[0], 0.0f);
  double mean = 0, var = 0;
  for (std::size_t i = 1; i < v.size(); ++i) mean += v[i] / (v.size() - 1);
  for (std::size_t i = 1; i < v.size(); ++i) var += (v[i] - mean) * (v[i] - mean) / (v.size() - 2);
  EXPECT_NEAR(mean, 4.0, 0.1);
  EXPECT_NEAR(var, 4.0, 0.2);
  for (float f : v) EXPECT_EQ(f, std::floor(f));
}
