"""The multi-GPU M-TIP pattern of the cuFINUFFT paper (spinifel), with nufftmp: one rank per
GPU, each holding its share of the diffraction images. Slicing evaluates the model at the
Ewald slices of this rank's orientations (a 3D type 2, model on every rank, no communication);
merging sums every rank's images back onto the lattice (a 3D type 1, all-reduced over the
GPUs) and, with nufftmp.mtip.Merger, solves the least-squares inversion of slicing.

    mpirun -np 2 python examples/mtip_slicing_merging.py

On GPUs (CUDA build and CuPy installed) the arrays are CuPy arrays on each rank's GPU; on the
CPU engine numpy arrays. Both run the same code.
"""
import numpy as np
from mpi4py import MPI

import nufftmp
from nufftmp import mtip

comm, M = MPI.COMM_WORLD, 31
ctx = nufftmp.Context(comm)                     # binds each rank to a GPU (or the CPU engine)
xp = np
if ctx.backend == "cuda":
    import cupy as xp
    xp.cuda.Device(ctx.device).use()

# --- the pattern (a dozen lines) ----------------------------------------------------------
pos = mtip.pixel_positions_reciprocal(nx=48, ny=48)                         # detector (1/A)
mine = mtip.reference_orientations(100 * comm.size)[comm.rank::comm.size]   # my images
H, K, L = (xp.asarray(v) for v in mtip.slice_points(pos, mine, mtip.reciprocal_scale(pos)))
k = np.arange(M) - M // 2                                                   # a smooth model
model = xp.asarray(np.exp(-(k[:, None, None]**2 + k[None, :, None]**2 + k[None, None, :]**2) / 40.0)
                   .astype(np.complex128))
slicing = nufftmp.DistPlan(ctx, 2, (M, M, M), eps=1e-9, isign=+1, modes_on_all=True)
slicing.setpts(H, K, L)
images = slicing.execute(model).real            # this rank's slices of the model
merging = nufftmp.DistPlan(ctx, 1, (M, M, M), eps=1e-9, isign=-1)
merging.setpts(H, K, L)
back = merging.execute(images.astype(xp.complex128))   # A^H b, summed over every rank's images
merger = mtip.Merger(ctx, M, lambda_=1e-6, tol=1e-8)
merger.setpts(H, K, L)
ac, report = merger.solve(images)                # the model back from every rank's images
# ------------------------------------------------------------------------------------------

ac = ac.get() if hasattr(ac, "get") else ac
truth = model.get().real if hasattr(model, "get") else model.real
corr = np.corrcoef(ac.ravel(), truth.ravel())[0, 1]
if comm.rank == 0:
    print(f"{comm.size} ranks on {ctx.backend}: {images.size} values on rank 0, "
          f"A^H b max {float(abs(back).max()):.3g}; merge: {report['iterations']} CG steps, "
          f"residual {report['residual']:.2e}, correlation with the model {corr:.6f}")
