// nufftmp-synth: simulate a single-particle diffraction data set (issue 5 layout) with its
// ground truth. Runs on rank 0 (start it with or without mpirun).
#include <getopt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp;
using namespace nufftmp::mtip;

namespace {
void usage() {
  std::printf(
      "usage: nufftmp-synth --output FILE [options]\n"
      "  --output FILE        HDF5 file to write (required)\n"
      "  --M N                lattice side of the ground-truth volume (default 33)\n"
      "  --n-images N         number of images (default 200)\n"
      "  --nx N, --ny N       detector pixels (default 32 x 32)\n"
      "  --pixel-size M       pixel size in metres (default 2e-3)\n"
      "  --distance M         sample-detector distance in metres (default 0.06)\n"
      "  --wavelength A       wavelength in Angstrom (default 2.0)\n"
      "  --atoms N            random molecule of N Gaussian atoms (default 40)\n"
      "  --shape S            clusters (default: four unequal clusters, no symmetry) or ball\n"
      "  --pdb FILE           molecule from the ATOM records of a PDB file instead\n"
      "  --sigma S            atom radius in voxels (default 1.0)\n"
      "  --fluence F          mean photons per pixel (default 100); 0 = no noise\n"
      "  --layout L           nufftmp (default) or spinifel: skopi's layout (intensities\n"
      "                       [n, panels, ny, nx], positions [panels, ny, nx, 3] in 1/m,\n"
      "                       particle quaternions [n, 1, 4], the complex diffraction field\n"
      "                       on skopi's mesh as volume, polarization and solid_angle)\n"
      "  --panels P           split the detector into P panels of ny/P rows (spinifel layout)\n"
      "  --corrections        images carry polarization x solid angle (written as data sets)\n"
      "  --beamstop R         pixels within R pixels of the centre read 0, and a data set\n"
      "                       'mask' marks them\n"
      "  --seed N             random seed (default 1)\n"
      "  --float              float NUFFT (default double)\n"
      "  --cpu                force the CPU engine\n");
}

template <typename T>
std::vector<float> simulate_images(const std::vector<double>& density, std::int64_t M,
                                   const std::vector<double>& pos, double scale,
                                   const std::vector<Quaternion>& orient, const Options& opts) {
  const std::int64_t npix = static_cast<std::int64_t>(pos.size() / 3);
  const std::int64_t n = static_cast<std::int64_t>(orient.size());
  // Chunks of images keep the coordinate arrays bounded for large data sets.
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t(1) << 23) / npix);
  std::vector<float> out(static_cast<std::size_t>(n * npix));
  std::vector<T> x, y, z;
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const std::int64_t nc = std::min(chunk, n - i0);
    x.resize(static_cast<std::size_t>(nc * npix));
    y.resize(x.size());
    z.resize(x.size());
    slice_points(pos, orient.data() + i0, nc, scale, x.data(), y.data(), z.data());
    const auto I = diffraction_intensities<T>(density, M, nc * npix, x.data(), y.data(),
                                              z.data(), sizeof(T) == 4 ? 1e-5 : 1e-9, opts);
    for (std::int64_t j = 0; j < nc * npix; ++j) out[i0 * npix + j] = static_cast<float>(I[j]);
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string output, pdb, shape = "clusters";
  std::int64_t M = 33, n_images = 200, atoms = 40;
  Detector det;
  det.nx = det.ny = 32;
  det.pixel_size = 2e-3;
  det.distance = 0.06;
  det.wavelength = 2.0;
  double sigma = 1.0, fluence = 100;
  std::uint64_t seed = 1;
  bool use_float = false, corrections = false;
  std::string layout = "nufftmp";
  std::int64_t panels = 1;
  double beamstop = 0;
  Options opts;
  static const option longopts[] = {
      {"output", required_argument, nullptr, 'o'}, {"M", required_argument, nullptr, 'M'},
      {"n-images", required_argument, nullptr, 'n'}, {"nx", required_argument, nullptr, 'x'},
      {"ny", required_argument, nullptr, 'y'}, {"pixel-size", required_argument, nullptr, 'p'},
      {"distance", required_argument, nullptr, 'd'},
      {"wavelength", required_argument, nullptr, 'w'}, {"atoms", required_argument, nullptr, 'a'},
      {"pdb", required_argument, nullptr, 'P'}, {"shape", required_argument, nullptr, 'H'}, {"sigma", required_argument, nullptr, 's'},
      {"fluence", required_argument, nullptr, 'f'}, {"seed", required_argument, nullptr, 'S'},
      {"float", no_argument, nullptr, 'F'}, {"cpu", no_argument, nullptr, 'C'},
      {"layout", required_argument, nullptr, 'L'}, {"panels", required_argument, nullptr, 'N'},
      {"corrections", no_argument, nullptr, 'K'}, {"beamstop", required_argument, nullptr, 'B'},
      {"help", no_argument, nullptr, 'h'}, {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, nullptr)) != -1) {
    switch (c) {
      case 'o': output = optarg; break;
      case 'M': M = std::atoll(optarg); break;
      case 'n': n_images = std::atoll(optarg); break;
      case 'x': det.nx = std::atoll(optarg); break;
      case 'y': det.ny = std::atoll(optarg); break;
      case 'p': det.pixel_size = std::atof(optarg); break;
      case 'd': det.distance = std::atof(optarg); break;
      case 'w': det.wavelength = std::atof(optarg); break;
      case 'a': atoms = std::atoll(optarg); break;
      case 'P': pdb = optarg; break;
      case 'H': shape = optarg; break;
      case 's': sigma = std::atof(optarg); break;
      case 'f': fluence = std::atof(optarg); break;
      case 'S': seed = std::strtoull(optarg, nullptr, 10); break;
      case 'F': use_float = true; break;
      case 'C': opts.backend = Backend::Cpu; break;
      case 'L': layout = optarg; break;
      case 'N': panels = std::atoll(optarg); break;
      case 'K': corrections = true; break;
      case 'B': beamstop = std::atof(optarg); break;
      case 'h': if (rank == 0) usage(); MPI_Finalize(); return 0;
      default: if (rank == 0) usage(); MPI_Finalize(); return 2;
    }
  }
  int rc = 0;
  if (rank == 0) {
    try {
      if (output.empty()) throw Error(ErrorCode::InvalidArgument, "--output is required");
      if (n_images < 1) throw Error(ErrorCode::InvalidArgument, "--n-images must be >= 1");
      if (M < 5) throw Error(ErrorCode::InvalidArgument, "--M must be >= 5");
      if (fluence < 0) throw Error(ErrorCode::InvalidArgument, "--fluence must be >= 0");
      if (layout != "nufftmp" && layout != "spinifel")
        throw Error(ErrorCode::InvalidArgument, "--layout " + layout + " (nufftmp or spinifel)");
      if (panels < 1 || det.ny % panels != 0 || (panels > 1 && layout != "spinifel"))
        throw Error(ErrorCode::InvalidArgument,
                    "--panels " + std::to_string(panels) +
                        " (>= 1, dividing --ny, more than 1 only with --layout spinifel)");
      const auto pos = pixel_positions_reciprocal(det);
      const double scale = reciprocal_scale(pos);
      const double dx = scale / (2 * 3.14159265358979323846);  // voxel, Angstrom
      if (shape != "clusters" && shape != "ball")
        throw Error(ErrorCode::InvalidArgument, "--shape " + shape + " (clusters or ball)");
      const Molecule mol = !pdb.empty()        ? pdb_molecule(pdb, dx, M, sigma)
                           : shape == "ball" ? random_molecule(atoms, M, sigma, seed)
                                             : clustered_molecule(atoms, M, sigma, seed);
      const auto density = density_on_grid(mol, M);
      std::mt19937_64 rng(seed + 1);
      std::vector<Quaternion> orient(static_cast<std::size_t>(n_images));
      for (auto& q : orient) q = random_quaternion(rng);
      std::vector<float> images =
          use_float ? simulate_images<float>(density, M, pos, scale, orient, opts)
                    : simulate_images<double>(density, M, pos, scale, orient, opts);
      const std::int64_t npix = det.nx * det.ny;
      const DetectorFactors factors = detector_factors(det);
      if (corrections) {
        // The expected signal carries C_p = polarization x solid angle (mean 1 here; the
        // fluence below sets the photon scale).
        std::vector<double> c(static_cast<std::size_t>(npix));
        double cm = 0;
        for (std::int64_t p = 0; p < npix; ++p)
          cm += c[p] = factors.polarization[p] * factors.solid_angle[p];
        cm /= static_cast<double>(npix);
        for (std::int64_t i = 0; i < n_images; ++i)
          for (std::int64_t p = 0; p < npix; ++p)
            images[i * npix + p] = static_cast<float>(images[i * npix + p] * c[p] / cm);
      }
      std::vector<double> mask;
      if (beamstop > 0) {
        mask.assign(static_cast<std::size_t>(npix), 1.0);
        for (std::int64_t iy = 0; iy < det.ny; ++iy)
          for (std::int64_t ix = 0; ix < det.nx; ++ix) {
            const double dx = ix - 0.5 * (det.nx - 1), dy = iy - 0.5 * (det.ny - 1);
            if (dx * dx + dy * dy < beamstop * beamstop) mask[iy * det.nx + ix] = 0;
          }
        for (std::int64_t i = 0; i < n_images; ++i)
          for (std::int64_t p = 0; p < npix; ++p)
            if (mask[p] == 0) images[i * npix + p] = 0;  // the stop's shadow
      }
      double mean = 0;
      for (float v : images) mean += v;
      mean /= static_cast<double>(images.size());
      // Photon units: the mean pixel receives `fluence` photons (1 when noiseless).
      const double gain = (fluence > 0 ? fluence : 1.0) / mean;
      for (auto& v : images) v = static_cast<float>(v * gain);
      if (fluence > 0) add_poisson_noise(images, rng);

      H5Writer w(output);
      const std::int64_t py = det.ny / panels;
      if (layout == "spinifel") {
        // skopi's sim_spinifel.py layout (io.hpp): s-vectors in 1/m, pixel-major components.
        w.write("intensities", {n_images, panels, py, det.nx}, images.data());
        std::vector<double> pl(static_cast<std::size_t>(3 * npix));
        double qmax = 0;
        for (std::int64_t p = 0; p < npix; ++p) {
          double r2 = 0;
          for (int c = 0; c < 3; ++c) {
            pl[3 * p + c] = pos[c * npix + p] * 1e10;
            r2 += pl[3 * p + c] * pl[3 * p + c];
          }
          qmax = std::max(qmax, std::sqrt(r2));
        }
        w.write("pixel_position_reciprocal", {panels, py, det.nx, 3}, pl.data());
        std::vector<double> q;
        for (const auto& o : orient) q.insert(q.end(), {o.w, -o.x, -o.y, -o.z});  // particle's
        w.write("orientations", {n_images, 1, 4}, q.data());
        // The diffraction field on skopi's mesh linspace(-qmax, qmax, M)^3, C order (x slowest).
        std::vector<double> x, y, z;
        for (std::int64_t a = 0; a < M; ++a)
          for (std::int64_t b = 0; b < M; ++b)
            for (std::int64_t c = 0; c < M; ++c) {
              const double l[3] = {-1 + 2.0 * a / (M - 1), -1 + 2.0 * b / (M - 1),
                                   -1 + 2.0 * c / (M - 1)};
              x.push_back(l[0] * qmax * 1e-10 * scale);
              y.push_back(l[1] * qmax * 1e-10 * scale);
              z.push_back(l[2] * qmax * 1e-10 * scale);
            }
        const auto field = diffraction_field<double>(density, M, M * M * M, x.data(), y.data(),
                                                     z.data(), 1e-9, opts);
        w.write("volume", {M, M, M}, field.data());
        w.write_attribute("reciprocal_extent", qmax);
        if (corrections) {
          w.write("polarization", {panels, py, det.nx}, factors.polarization.data());
          w.write("solid_angle", {panels, py, det.nx}, factors.solid_angle.data());
        }
        if (!mask.empty()) w.write("mask", {panels, py, det.nx}, mask.data());
      } else {
        w.write("intensities", {n_images, det.ny, det.nx}, images.data());
        w.write("pixel_position_reciprocal", {3, det.ny, det.nx}, pos.data());
        std::vector<double> q;
        for (const auto& o : orient) q.insert(q.end(), {o.w, o.x, o.y, o.z});
        w.write("orientations", {n_images, 4}, q.data());
        w.write("volume", {M, M, M}, density.data());
        if (corrections) {
          w.write("polarization", {det.ny, det.nx}, factors.polarization.data());
          w.write("solid_angle", {det.ny, det.nx}, factors.solid_angle.data());
        }
        if (!mask.empty()) w.write("mask", {det.ny, det.nx}, mask.data());
      }
      w.write_attribute("wavelength_angstrom", det.wavelength);
      w.write_attribute("distance_m", det.distance);
      w.write_attribute("pixel_size_m", det.pixel_size);
      w.write_attribute("voxel_angstrom", dx);
      w.write_attribute("fluence", fluence);
      w.write_attribute("gain", gain);
      w.commit();
      std::printf("nufftmp-synth: %lld images of %lld x %lld, M = %lld, %zu atoms, voxel %.3f A, "
                  "fluence %g photons/pixel -> %s\n",
                  (long long)n_images, (long long)det.ny, (long long)det.nx, (long long)M,
                  mol.atoms.size(), dx, fluence, output.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nufftmp-synth: error: %s\n", e.what());
      rc = 1;
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
