// Builds without HDF5 (NUFFTMP_HDF5=OFF): .h5 files are not available.
#include "nufftmp/errors.hpp"
#include "system_files.hpp"

namespace nufftmp::ewald::detail {

System read_hdf5(const std::string& path) {
  throw Error(ErrorCode::NotAvailable, "'" + path + "': HDF5 is not built in (NUFFTMP_HDF5=OFF)");
}
void write_hdf5(const std::string& path, const System&) {
  throw Error(ErrorCode::NotAvailable, "'" + path + "': HDF5 is not built in (NUFFTMP_HDF5=OFF)");
}

}  // namespace nufftmp::ewald::detail
