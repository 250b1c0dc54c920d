// M-TIP data sets in HDF5 (h5io.cpp): probing and reading a data set (each rank its share of
// the images), atomic writes of result files, and single-process reads.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"

namespace nufftmp::mtip {

// File layout (issue 5): intensities [n_images, ny, nx] float, pixel_position_reciprocal
// [3, ny, nx], optional orientations [n_images, 4] (w, x, y, z), optional volume [M, M, M].
struct DataInfo {
  std::int64_t n_images = 0, ny = 0, nx = 0;
  bool has_orientations = false;
  bool has_volume = false;
  std::int64_t volume_M = 0;
};
// Collective: every rank opens the file read-only and checks names and shapes.
DataInfo probe_data(MPI_Comm comm, const std::string& path);
// This rank's contiguous range of the file's images (the distributed layer's partition rule:
// near-equal shares in rank order).
struct Share {
  std::int64_t first = 0, count = 0;
};
// Collective: this rank's hyperslab of images [first, first+count) (float, [count, ny, nx]),
// all pixel positions ([3, ny*nx]), and orientations when present and wanted.
// NaN/Inf in any of them is an error naming the data set and index.
struct LocalImages {
  Share share;
  std::vector<float> intensities;
  std::vector<double> positions;
  std::vector<Quaternion> orientations;  // empty unless asked for
};
LocalImages read_local_images(MPI_Comm comm, const std::string& path, const DataInfo& info,
                              bool with_orientations);
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
