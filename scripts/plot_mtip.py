#!/usr/bin/env python3
"""Central slices of an M-TIP reconstruction (nufftmp-mtip --output FILE) as a PNG.

Rows: the reconstructed density (aligned to the ground truth when the file has one), the ground
truth density (when present), and the merged intensity (log scale). Columns: the three central
planes (z = 0, y = 0, x = 0).

usage: plot_mtip.py RESULT.h5 [-o OUT.png]
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result", help="HDF5 file written by nufftmp-mtip")
    ap.add_argument("-o", "--output", help="PNG path (default: RESULT with .png)")
    args = ap.parse_args()
    try:
        import h5py
        import numpy as np
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        sys.exit(f"plot_mtip.py: needs numpy, h5py and matplotlib ({e}); "
                 "pip install numpy h5py matplotlib")

    out = args.output or (args.result.rsplit(".", 1)[0] + ".png")
    with h5py.File(args.result, "r") as f:
        rows = []
        aligned = "density_aligned" in f
        rows.append(("density (aligned)" if aligned else "density",
                     f["density_aligned" if aligned else "density"][...], False))
        if "volume_truth" in f:
            rows.append(("ground truth", f["volume_truth"][...], False))
        rows.append(("intensity (log10)", f["intensity"][...], True))
        gen = int(f.attrs.get("generation", 0))
        corr = float(f.attrs.get("correlation", -2))
        err = float(f.attrs.get("fourier_error", float("nan")))

    fig, axes = plt.subplots(len(rows), 3, figsize=(9, 3 * len(rows)), squeeze=False)
    for r, (name, vol, log) in enumerate(rows):
        c = vol.shape[0] // 2  # the origin of the centred lattice
        if log:
            vol = np.log10(np.maximum(vol, vol.max() * 1e-6))
        planes = [("z = 0", vol[c, :, :]), ("y = 0", vol[:, c, :]), ("x = 0", vol[:, :, c])]
        for k, (pname, img) in enumerate(planes):
            ax = axes[r][k]
            ax.imshow(img, origin="lower", cmap="magma" if log else "viridis")
            ax.set_title(f"{name}, {pname}", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
    title = f"nufftmp M-TIP, generation {gen}, Fourier error {err:.3f}"
    if corr > -2:
        title += f", correlation with truth {corr:.3f}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
