// M-TIP (multi-tiered iterative phasing) for single-particle X-ray diffraction: the pieces of
// the reconstruction loop, each usable and testable on its own, and the loop itself.
//
// Conventions shared by every piece:
//  - A volume of side M is stored x fastest, index i <-> signed position/mode k = i - M/2
//    (integer division; "centred" order, the NUFFT's modeord 0).
//  - The model is the autocorrelation ac of the density on the M^3 lattice of lags; the
//    intensity at a scaled reciprocal point x in [-pi, pi)^3 is its Fourier series
//    I(x) = sum_k ac_k exp(i k.x) (ac is real and even, so the sign does not matter).
//    Slicing is therefore a 3D type 2 NUFFT and merging inverts it.
//  - Reciprocal positions q (1/Angstrom) become NUFFT coordinates x = scale * R q, with
//    scale = pi (1 - 1e-6) / q_max so every pixel of every orientation lies inside (-pi, pi).
//    exp(i k.x) = exp(2 pi i (k scale / 2 pi).q), so the real-space voxel of the M^3 lattice
//    is dx = scale / (2 pi) = (1 - 1e-6) / (2 q_max) Angstrom.
//  - Orientations are unit quaternions (w, x, y, z); image j sees the model at R(q_j) p for
//    its detector positions p (the "lattice" convention; skopi's and spinifel's quaternions
//    rotate the particle and are the conjugates: io.hpp).
//  - Every function taking an MPI communicator is collective over it; an error on one rank
//    stops every rank: the failing rank throws its own nufftmp::Error, the others
//    Error(RemoteFailure) naming that rank and its error.
//
// One header per concern, all included here: geometry, io (HDF5 layouts), corrections (detector
// masks and corrections), simulate, volume, truth (ground-truth scores), convergence
// (truth-free measures), slicing, matching, merging, phasing, reconstruct.
#pragma once

#include "nufftmp/mtip/convergence.hpp"
#include "nufftmp/mtip/corrections.hpp"
#include "nufftmp/mtip/geometry.hpp"
#include "nufftmp/mtip/io.hpp"
#include "nufftmp/mtip/matching.hpp"
#include "nufftmp/mtip/merging.hpp"
#include "nufftmp/mtip/phasing.hpp"
#include "nufftmp/mtip/reconstruct.hpp"
#include "nufftmp/mtip/simulate.hpp"
#include "nufftmp/mtip/slicing.hpp"
#include "nufftmp/mtip/truth.hpp"
#include "nufftmp/mtip/volume.hpp"
