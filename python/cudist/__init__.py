"""cudist: distance-like matrix products on NVIDIA GPUs, with a CPU backend giving the same answers.

- cdist, pdist: drop-ins for scipy.spatial.distance's, every metric and keyword argument, with
  its directed_hausdorff, squareform, is_valid_dm, is_valid_y, num_obs_dm and num_obs_y;
- knn, self_knn, match, radius: nearest neighbours without the distance matrix, and
  knn_batched, match_batched for many independent problems in one call; merge_knn for the
  answers of knn over shards of one database (one knn's answer, ties included);
- semiring_product, minplus: matrix products over (min, +) and other semirings;
- apsp, apsp_path: all-pairs shortest paths of dense, sparse, edge-list or Matrix Market graphs;
- spmv, spmm, SpmvPlan: sparse (CSR) matrix times dense vector / matrix (spmv also over min-plus);
- cudist.sklearn (needs scikit-learn): NearestNeighbors and pairwise_distances, sklearn's own.

Each takes NumPy arrays (CPU backend, or a GPU with device=) and torch / CuPy arrays, used in
place on their own device and stream, and returns arrays of the same framework::

    import cudist
    D = cudist.cdist(XA, XB, "cosine")   # NumPy in, NumPy out (CPU); torch CUDA in, torch CUDA out

cudist.dask (imported on its own; needs dask) runs knn, match, cdist and pdist over dask arrays,
on a Dask cluster's workers.
"""

from ._cudist import CudaError, DeviceUnavailableError, NegativeCycleError, OutOfMemoryError
from ._devices import cuda_available, devices
from .distance import (cdist, directed_hausdorff, is_valid_dm, is_valid_y, num_obs_dm, num_obs_y,
                       pdist, squareform)
from .graph import apsp, apsp_path
from .neighbors import knn, knn_batched, match, match_batched, merge_knn, radius, self_knn
from .semiring import minplus, semiring_product
from .sparse import SpmvPlan, spmm, spmv

__version__ = "0.1.0"

__all__ = [
    "CudaError",
    "DeviceUnavailableError",
    "NegativeCycleError",
    "OutOfMemoryError",
    "SpmvPlan",
    "apsp",
    "apsp_path",
    "cdist",
    "cuda_available",
    "devices",
    "directed_hausdorff",
    "is_valid_dm",
    "is_valid_y",
    "knn",
    "knn_batched",
    "match",
    "match_batched",
    "merge_knn",
    "minplus",
    "num_obs_dm",
    "num_obs_y",
    "pdist",
    "radius",
    "self_knn",
    "semiring_product",
    "spmm",
    "spmv",
    "squareform",
]
