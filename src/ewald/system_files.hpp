// Reading and writing a whole system on one process: extended XYZ (xyz_file.cpp) and HDF5
// (hdf5_file.cpp; hdf5_absent.cpp in builds without HDF5). system_io.cpp spreads what the
// root reads over the ranks and gathers what it writes. Errors: IoFailure naming the file
// and the line, field or data set.
#pragma once

#include <string>

#include "nufftmp/ewald.hpp"

namespace nufftmp::ewald::detail {

System read_xyz(const std::string& path);
void write_xyz(const std::string& path, const System& s);
System read_hdf5(const std::string& path);
void write_hdf5(const std::string& path, const System& s);

}  // namespace nufftmp::ewald::detail
