// HDF5 results and single data sets through the serial C library (the input's layouts and
// each rank's share of the images: data_layout.cpp). All writes go through one process, to
// "<path>.tmp" first and renamed over the target on commit, so a killed job never leaves a
// torn file.
#include "h5_handle.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;

using h5::check_finite;
using h5::dataset_dims;
using h5::Handle;
using h5::io_fail;
using h5::open_dataset;
using h5::open_file;
using h5::read_rows;

std::vector<double> read_volume(MPI_Comm comm, const std::string& path, const std::string& name) {
  std::vector<double> v;
  agreed(comm, [&] {
    std::vector<std::int64_t> dims;
    v = read_dataset(path, name, &dims);
    if (dims.size() != 3 || dims[0] != dims[1] || dims[1] != dims[2])
      io_fail("'" + path + "': " + name + " is not a cube [M, M, M]");
    check_finite(v.data(), v.size(), 0, path, name);
  });
  return v;
}

std::vector<double> read_dataset(const std::string& path, const std::string& name,
                                 std::vector<std::int64_t>* dims_out) {
  Handle f = open_file(path);
  Handle d = open_dataset(f.get(), path, name);
  auto dims = dataset_dims(d.get(), path, name);
  std::size_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<double> v(n);
  read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, dims.empty() ? 1 : dims[0], v.data(), path,
            name);
  if (dims_out) dims_out->assign(dims.begin(), dims.end());
  return v;
}

double read_attribute(const std::string& path, const std::string& name) {
  Handle f = open_file(path);
  if (H5Aexists(f.get(), name.c_str()) <= 0)
    io_fail("'" + path + "': attribute '" + name + "' is missing");
  Handle a(H5Aopen(f.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  double v = 0;
  if (!a.ok() || H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0)
    io_fail("'" + path + "': cannot read attribute '" + name + "'");
  return v;
}

// ---- the atomic writer

struct H5Writer::Impl {
  std::string path, tmp;
  hid_t file = -1;
  bool committed = false;
};

H5Writer::H5Writer(const std::string& path) : impl_(std::make_unique<Impl>()) {
  h5::quiet();
  impl_->path = path;
  impl_->tmp = path + ".tmp";
  impl_->file = H5Fcreate(impl_->tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (impl_->file < 0) io_fail("cannot create HDF5 file '" + impl_->tmp + "'");
}

H5Writer::~H5Writer() {
  if (impl_ && impl_->file >= 0) H5Fclose(impl_->file);
  if (impl_ && !impl_->committed) std::remove(impl_->tmp.c_str());
}

namespace {
void write_any(hid_t file, const std::string& fname, const std::string& name,
               const std::vector<std::int64_t>& dims, hid_t memtype, hid_t filetype,
               const void* data) {
  std::vector<hsize_t> d(dims.begin(), dims.end());
  Handle space(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
  Handle dset(H5Dcreate2(file, name.c_str(), filetype, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
  if (!space.ok() || !dset.ok()) io_fail("'" + fname + "': cannot create data set '" + name + "'");
  if (H5Dwrite(dset.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    io_fail("'" + fname + "': writing data set '" + name + "' failed");
}
}  // namespace

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const float* data) {
  write_any(impl_->file, impl_->tmp, name, dims, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, data);
}

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const double* data) {
  write_any(impl_->file, impl_->tmp, name, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, data);
}

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::complex<double>* data) {
  Handle type(H5Tcreate(H5T_COMPOUND, 2 * sizeof(double)), H5Tclose);
  H5Tinsert(type.get(), "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(type.get(), "i", sizeof(double), H5T_NATIVE_DOUBLE);
  // std::complex<double> is two doubles, real first (the standard's array-compatibility rule).
  write_any(impl_->file, impl_->tmp, name, dims, type.get(), type.get(), data);
}

void H5Writer::write_attribute(const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate2(impl_->file, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) < 0)
    io_fail("'" + impl_->tmp + "': cannot write attribute '" + name + "'");
}

void H5Writer::write_attribute(const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate2(impl_->file, name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), type.get(), value.c_str()) < 0)
    io_fail("'" + impl_->tmp + "': cannot write attribute '" + name + "'");
}

void H5Writer::commit() {
  if (impl_->committed) return;
  if (H5Fclose(impl_->file) < 0) {
    impl_->file = -1;
    io_fail("closing '" + impl_->tmp + "' failed");
  }
  impl_->file = -1;
  // rename() within one directory is atomic on POSIX file systems.
  if (std::rename(impl_->tmp.c_str(), impl_->path.c_str()) != 0)
    io_fail("cannot rename '" + impl_->tmp + "' to '" + impl_->path + "'");
  impl_->committed = true;
}

}  // namespace nufftmp::mtip
