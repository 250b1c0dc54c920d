// Simulated single-particle data (simulate.cpp): molecules, their densities on the lattice,
// diffraction intensities at slice points and Poisson noise.
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

struct Molecule {
  std::vector<Vec3> atoms;  // lattice units, about the origin
  std::vector<double> weight;
  double sigma = 1.0;  // Gaussian radius, lattice units
};
// n_atoms at random in a ball that keeps the autocorrelation inside the M^3 lattice.
Molecule random_molecule(std::int64_t n_atoms, std::int64_t M, double sigma, std::uint64_t seed);
// n_atoms in four clusters of unequal weight at non-coplanar, unequal positions: a molecule
// whose intensity has no rotational symmetry even at low resolution (a round blob has nearly
// every symmetry there, which starves orientation matching).
Molecule clustered_molecule(std::int64_t n_atoms, std::int64_t M, double sigma, std::uint64_t seed);
// ATOM/HETATM records of a PDB file, centred, converted to lattice units with voxel dx
// (Angstrom). Throws if the molecule does not fit (autocorrelation inside M^3).
Molecule pdb_molecule(const std::string& path, double dx, std::int64_t M, double sigma);
// Density on the M^3 lattice (centred order).
std::vector<double> density_on_grid(const Molecule& mol, std::int64_t M);
// The diffraction field F(x_j) = sum_n rho_n exp(-i n.x_j), through a 3D type 2 NUFFT.
template <typename T>
std::vector<std::complex<double>> diffraction_field(const std::vector<double>& density,
                                                    std::int64_t M, std::int64_t n_points,
                                                    const T* x, const T* y, const T* z,
                                                    double tol, const Options& opts);
// |F(x_j)|^2 with F(x) = sum_n rho_n exp(-i n.x), through a 3D type 2 NUFFT.
template <typename T>
std::vector<double> diffraction_intensities(const std::vector<double>& density, std::int64_t M,
                                            std::int64_t n_points, const T* x, const T* y,
                                            const T* z, double tol, const Options& opts);
// Replaces each value v by a Poisson draw of mean v.
void add_poisson_noise(std::vector<float>& values, std::mt19937_64& rng);

}  // namespace nufftmp::mtip
