// M-TIP data sets in HDF5 (h5io.cpp): probing and reading a data set (each rank its share of
// the images), atomic writes of result files, and single-process reads.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"

namespace nufftmp::mtip {

// Two layouts of the same content, told apart by the shapes (probe_data):
//  - nufftmp's (issue 5): intensities [n_images, ny, nx], pixel_position_reciprocal
//    [3, ny, nx] in 1/Angstrom, optional orientations [n_images, 4], optional volume: the
//    density [M, M, M] on the reconstruction's lattice.
//  - spinifel's / skopi's (skopi's sim_spinifel.py, spinifel's prep.py): intensities
//    [n_images, panels, ny, nx] (photons or intensities), pixel_position_reciprocal
//    [panels, ny, nx, 3] in 1/m, optional orientations [n_images, 1, 4] or [n_images, 4],
//    optional volume: the complex diffraction field [N, N, N] on skopi's reciprocal mesh
//    linspace(-q_max, q_max, N)^3 (q_max: attribute reciprocal_extent, else the largest pixel
//    |q|), optional polarization and solid_angle [panels, ny, nx].
// Either detector may have any number of panels: intensities [n_images, (panels,) ny, nx]
// with positions [3, (panels,) ny, nx] or [(panels,) ny, nx, 3]. Positions are scattering
// vectors s = k_out - k_in with |k| = 1 / wavelength (no 2 pi: skopi's "s-vectors", q = 2 pi s
// in its diffraction code); their unit is told by their size: no detector of X-ray diffraction
// reaches |s| = 1e3 1/Angstrom, and none stays below 1e3 1/m, so a largest |s| above 1e3 is
// read as 1/m and converted to 1/Angstrom.
// Quaternions are (w, x, y, z) in both (skopi's quaternion2rot3d is the matrix of
// quat_to_matrix). They differ in what they rotate: nufftmp's ("lattice") take the detector's
// reciprocal positions into the model's frame, image j seeing the model at R(q_j) p; skopi's
// and spinifel's ("particle") rotate the particle, and spinifel slices its model at
// R(q_j)^-1 p. The two are conjugates of each other.
enum class DataLayout { Nufftmp, Spinifel };
enum class QuaternionConvention { Lattice, Particle };
const char* layout_name(DataLayout l);
const char* convention_name(QuaternionConvention c);
// The convention of a word ("lattice", "particle"); throws InvalidArgument naming the word.
QuaternionConvention parse_convention(const std::string& word);
// Takes a file's quaternion in convention c to nufftmp's (the conjugate for Particle).
Quaternion to_lattice(const Quaternion& q, QuaternionConvention c);

struct DataInfo {
  DataLayout layout = DataLayout::Nufftmp;
  std::int64_t n_images = 0, panels = 1, ny = 0, nx = 0;  // detector [panels, ny, nx]
  bool positions_last = false;  // pixel_position_reciprocal [..., 3] rather than [3, ...]
  double position_unit = 1;     // the file's positions times this are 1/Angstrom
  bool has_orientations = false;
  // The layout's convention, or the file's root attribute "quaternion_convention".
  QuaternionConvention file_convention = QuaternionConvention::Lattice;
  bool has_volume = false;
  bool volume_complex = false;  // a diffraction field (spinifel), not a density
  std::int64_t volume_M = 0;
  std::string summary;  // what was found, in one line
  std::int64_t npix() const { return panels * ny * nx; }
};
// Collective: every rank opens the file read-only and checks names and shapes. A file in
// neither layout fails with IoFailure naming what it holds.
DataInfo probe_data(MPI_Comm comm, const std::string& path);
// This rank's contiguous range of the file's images (the distributed layer's partition rule:
// near-equal shares in rank order).
struct Share {
  std::int64_t first = 0, count = 0;
};
// Collective: this rank's hyperslab of images [first, first+count) (float, [count, npix]),
// all pixel positions ([3, npix] in 1/Angstrom, pixel order of the images), and orientations
// when present and wanted, in nufftmp's convention (convention: the file's; empty: the one
// info names). NaN/Inf in any of them is an error naming the data set and index.
struct LocalImages {
  Share share;
  std::vector<float> intensities;
  std::vector<double> positions;
  std::vector<Quaternion> orientations;  // empty unless asked for
};
LocalImages read_local_images(MPI_Comm comm, const std::string& path, const DataInfo& info,
                              bool with_orientations,
                              std::optional<QuaternionConvention> convention = std::nullopt);
// Collective: volume [M, M, M] read by every rank (double).
std::vector<double> read_volume(MPI_Comm comm, const std::string& path,
                                const std::string& name = "volume");

// Writes one HDF5 file atomically and durably: everything goes to a temporary file of a unique
// name ("<path>.tmp.<pid>.<n>.<random>") in path's directory, created by the constructor (so a
// path that cannot be written fails there, before any work); commit() fsyncs it, renames it over
// path and fsyncs the directory. A symlink at path is followed (its target is replaced); a
// directory, device, fifo or socket there is an Error(IoFailure). Destroying an uncommitted
// writer removes the temporary file. IfExists::Refuse: an existing file at path is an
// Error(IoFailure) naming it. Single process.
enum class IfExists { Replace, Refuse };
class H5Writer {
 public:
  explicit H5Writer(const std::string& path, IfExists if_exists = IfExists::Replace);
  ~H5Writer();
  H5Writer(const H5Writer&) = delete;
  H5Writer& operator=(const H5Writer&) = delete;
  void write(const std::string& name, const std::vector<std::int64_t>& dims, const float* data);
  void write(const std::string& name, const std::vector<std::int64_t>& dims, const double* data);
  // As numpy/h5py store complex128: a compound of two doubles named "r" and "i".
  void write(const std::string& name, const std::vector<std::int64_t>& dims,
             const std::complex<double>* data);
  void write_attribute(const std::string& name, double value);  // on the root group
  void write_attribute(const std::string& name, const std::string& value);
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// Reads a scalar attribute of the root group (single process); throws IoFailure when absent.
double read_attribute(const std::string& path, const std::string& name);
// A string attribute of the root group (fixed or variable length); IoFailure when absent.
std::string read_string_attribute(const std::string& path, const std::string& name);
bool has_attribute(const std::string& path, const std::string& name);
// Single process: the whole data set as double (any stored float type), with its dims.
std::vector<double> read_dataset(const std::string& path, const std::string& name,
                                 std::vector<std::int64_t>* dims = nullptr);

}  // namespace nufftmp::mtip
