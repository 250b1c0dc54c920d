// HDF5 systems: /box (3 doubles), /positions (N x 3), /charges (N), read and written whole by
// one process with the serial library.
#include <cmath>
#include <vector>

#include "h5/h5_handle.hpp"
#include "nufftmp/errors.hpp"
#include "system_files.hpp"

namespace nufftmp::ewald::detail {

namespace {

using h5::Handle;

[[noreturn]] void fail(const std::string& path, const std::string& msg) {
  throw Error(ErrorCode::IoFailure, "'" + path + "': " + msg);
}

std::vector<double> read_dataset(hid_t file, const std::string& path, const char* name,
                                 std::vector<hsize_t>& dims) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) fail(path, std::string("data set ") + name + " is missing");
  Handle d(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!d.ok()) fail(path, std::string("cannot open data set ") + name);
  Handle space(H5Dget_space(d.get()), H5Sclose);
  const int nd = H5Sget_simple_extent_ndims(space.get());
  if (nd < 1 || nd > 2) fail(path, std::string("data set ") + name + " has rank " + std::to_string(nd));
  dims.assign(static_cast<std::size_t>(nd), 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  Handle type(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT && H5Tget_class(type.get()) != H5T_INTEGER)
    fail(path, std::string("data set ") + name + " is not numeric");
  hsize_t n = 1;
  for (auto v : dims) n *= v;
  std::vector<double> out(static_cast<std::size_t>(n));
  if (n > 0 && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(path, std::string("cannot read data set ") + name);
  return out;
}

void write_dataset(hid_t file, const std::string& path, const char* name,
                   const std::vector<hsize_t>& dims, const double* data) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Handle d(H5Dcreate2(file, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Dclose);
  if (!space.ok() || !d.ok()) fail(path, std::string("cannot create data set ") + name);
  if (H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail(path, std::string("cannot write data set ") + name);
}

}  // namespace

System read_hdf5(const std::string& path) {
  h5::quiet();
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(path, "cannot open as an HDF5 file");
  std::vector<hsize_t> db, dp, dq;
  const auto box = read_dataset(f.get(), path, "box", db);
  const auto pos = read_dataset(f.get(), path, "positions", dp);
  const auto q = read_dataset(f.get(), path, "charges", dq);
  if (box.size() != 3) fail(path, "box has " + std::to_string(box.size()) + " values, 3 expected");
  if (dp.size() != 2 || dp[1] != 3)
    fail(path, "positions must be N x 3");
  if (dq.size() != 1 || dq[0] != dp[0])
    fail(path, "charges has " + std::to_string(q.size()) + " values for " +
                   std::to_string(dp[0]) + " positions");
  System s;
  for (int d = 0; d < 3; ++d) {
    if (!(std::isfinite(box[d]) && box[d] > 0))
      fail(path, "box[" + std::to_string(d) + "] = " + std::to_string(box[d]) + " is not positive");
    s.box.L[d] = box[d];
  }
  const std::size_t n = q.size();
  s.x.resize(n);
  s.y.resize(n);
  s.z.resize(n);
  s.q = q;
  for (std::size_t i = 0; i < n; ++i) {
    s.x[i] = pos[3 * i];
    s.y[i] = pos[3 * i + 1];
    s.z[i] = pos[3 * i + 2];
  }
  return s;
}

void write_hdf5(const std::string& path, const System& s) {
  h5::quiet();
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(path, "cannot create");
  const auto n = static_cast<hsize_t>(s.size());
  std::vector<double> pos(3 * static_cast<std::size_t>(n));
  for (hsize_t i = 0; i < n; ++i) {
    pos[3 * i] = s.x[i];
    pos[3 * i + 1] = s.y[i];
    pos[3 * i + 2] = s.z[i];
  }
  write_dataset(f.get(), path, "box", {3}, s.box.L.data());
  write_dataset(f.get(), path, "positions", {n, 3}, pos.data());
  write_dataset(f.get(), path, "charges", {n}, s.q.data());
}

}  // namespace nufftmp::ewald::detail
