# Type hints for the public API of cudist. Arrays of a DLPack framework (NumPy, torch, CuPy) come
# back as the same type; array_likes (lists) come back as NumPy arrays.
import os
from typing import Any, Callable, Literal, Protocol, Sequence, TypeVar, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

class _DLPackArray(Protocol):
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def ndim(self) -> int: ...
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

_ArrayT = TypeVar("_ArrayT", bound=_DLPackArray)
_Parameter = npt.ArrayLike | _DLPackArray | None
_Device = str | Any  # 'cpu', 'cuda', 'cuda:N', 'auto', or a torch.device
_Offsets = npt.ArrayLike | _DLPackArray  # 1-D integers, CSR indptr style

class DeviceUnavailableError(RuntimeError): ...
class OutOfMemoryError(MemoryError): ...
class CudaError(RuntimeError): ...

class NegativeCycleError(ValueError):
    vertex: int

def cuda_available() -> bool: ...
def devices() -> list[str]: ...
@overload
def cdist(
    XA: _ArrayT,
    XB: _DLPackArray,
    metric: str | Callable[..., float] = "euclidean",
    *,
    out: _ArrayT | None = None,
    dtype: Any | None = None,
    device: _Device | None = None,
    memory_budget: int | None = None,
    precision: Literal["exact", "tf32"] = "exact",
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> _ArrayT: ...
@overload
def cdist(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    metric: str | Callable[..., float] = "euclidean",
    *,
    out: npt.NDArray[np.floating[Any]] | None = None,
    dtype: Any | None = None,
    device: _Device | None = None,
    memory_budget: int | None = None,
    precision: Literal["exact", "tf32"] = "exact",
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> npt.NDArray[np.floating[Any]]: ...
@overload
def pdist(
    X: _ArrayT,
    metric: str | Callable[..., float] = "euclidean",
    *,
    out: _ArrayT | None = None,
    dtype: Any | None = None,
    device: _Device | None = None,
    memory_budget: int | None = None,
    precision: Literal["exact", "tf32"] = "exact",
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> _ArrayT: ...
@overload
def pdist(
    X: npt.ArrayLike,
    metric: str | Callable[..., float] = "euclidean",
    *,
    out: npt.NDArray[np.floating[Any]] | None = None,
    dtype: Any | None = None,
    device: _Device | None = None,
    memory_budget: int | None = None,
    precision: Literal["exact", "tf32"] = "exact",
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> npt.NDArray[np.floating[Any]]: ...
def squareform(X: _DLPackArray | npt.ArrayLike, force: str = "no", checks: bool = True) -> Any: ...
def is_valid_dm(
    D: _DLPackArray | npt.ArrayLike,
    tol: float = 0.0,
    throw: bool = False,
    name: str | None = "D",
    warning: bool = False,
) -> bool: ...
def is_valid_y(
    y: _DLPackArray | npt.ArrayLike,
    warning: bool = False,
    throw: bool = False,
    name: str | None = None,
) -> bool: ...
def num_obs_dm(d: _DLPackArray | npt.ArrayLike) -> int: ...
def num_obs_y(Y: _DLPackArray | npt.ArrayLike) -> int: ...
def directed_hausdorff(
    u: _DLPackArray | npt.ArrayLike,
    v: _DLPackArray | npt.ArrayLike,
    rng: Any = 0,
    *,
    seed: Any = None,
    device: _Device | None = None,
) -> tuple[float, int, int]: ...
@overload
def knn(
    XA: _ArrayT,
    XB: _DLPackArray,
    k: int,
    metric: str = "euclidean",
    *,
    pad: bool = False,
    device: _Device | None = None,
    memory_budget: int | None = None,
    rank_values: bool = False,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT]: ...
@overload
def knn(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    k: int,
    metric: str = "euclidean",
    *,
    pad: bool = False,
    device: _Device | None = None,
    memory_budget: int | None = None,
    rank_values: bool = False,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]: ...
def merge_knn(
    part_distances: Sequence[npt.ArrayLike],
    part_indices: Sequence[npt.ArrayLike],
    k: int,
    metric: str = "euclidean",
    *,
    p: float = 2.0,
    parts_rank_values: bool = False,
    rank_values: bool = False,
    pad: bool = False,
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]: ...
@overload
def self_knn(
    X: _ArrayT,
    k: int,
    metric: str = "euclidean",
    *,
    exclude_self: bool = True,
    pad: bool = False,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT]: ...
@overload
def self_knn(
    X: npt.ArrayLike,
    k: int,
    metric: str = "euclidean",
    *,
    exclude_self: bool = True,
    pad: bool = False,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]: ...
@overload
def knn_batched(
    XA: _ArrayT,
    XB: _DLPackArray,
    XA_offsets: _Offsets,
    XB_offsets: _Offsets,
    k: int,
    metric: str = "euclidean",
    *,
    pad: bool = False,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT]: ...
@overload
def knn_batched(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    XA_offsets: _Offsets,
    XB_offsets: _Offsets,
    k: int,
    metric: str = "euclidean",
    *,
    pad: bool = False,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]: ...
@overload
def match(
    XA: _ArrayT,
    XB: _DLPackArray,
    metric: str = "euclidean",
    *,
    ratio: float = 0.75,
    mutual: bool = False,
    max_distance: float = ...,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT]: ...
@overload
def match(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    metric: str = "euclidean",
    *,
    ratio: float = 0.75,
    mutual: bool = False,
    max_distance: float = ...,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.floating[Any]]]: ...
@overload
def match_batched(
    XA: _ArrayT,
    XB: _DLPackArray,
    XA_offsets: _Offsets,
    XB_offsets: _Offsets,
    metric: str = "euclidean",
    *,
    ratio: float = 0.75,
    mutual: bool = False,
    max_distance: float = ...,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT, _ArrayT]: ...
@overload
def match_batched(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    XA_offsets: _Offsets,
    XB_offsets: _Offsets,
    metric: str = "euclidean",
    *,
    ratio: float = 0.75,
    mutual: bool = False,
    max_distance: float = ...,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]: ...
@overload
def radius(
    XA: _ArrayT,
    XB: _DLPackArray,
    r: float,
    metric: str = "euclidean",
    *,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[_ArrayT, _ArrayT, _ArrayT]: ...
@overload
def radius(
    XA: npt.ArrayLike,
    XB: npt.ArrayLike,
    r: float,
    metric: str = "euclidean",
    *,
    device: _Device | None = None,
    p: float = 2.0,
    w: _Parameter = None,
    V: _Parameter = None,
    VI: _Parameter = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.floating[Any]]]: ...
def semiring_product(
    A: Any,
    B: Any,
    semiring: str = "min-plus",
    *,
    out: Any = None,
    accumulate: bool = False,
    witness: Any = False,
    device: _Device | None = None,
) -> Any: ...
def minplus(
    A: Any, B: Any, *, out: Any = None, witness: Any = False, device: _Device | None = None
) -> Any: ...
def apsp(
    graph: Any | str | os.PathLike[str] | tuple[Any, Any, Any],
    *,
    n: int | None = None,
    dtype: npt.DTypeLike | None = None,
    directed: bool = True,
    next_hops: bool = False,
    out: Any = None,
    device: _Device | None = None,
) -> Any: ...
def apsp_path(next_hops: Any, source: int, target: int) -> list[int]: ...
def spmv(
    A: Any,
    x: _ArrayT,
    *,
    y: _ArrayT | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    transpose: bool = False,
    semiring: str = "plus-times",
    device: _Device | None = None,
) -> _ArrayT: ...
def spmm(
    A: Any,
    X: _ArrayT,
    *,
    Y: _ArrayT | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    transpose: bool = False,
    device: _Device | None = None,
) -> _ArrayT: ...

class SpmvPlan:
    def __init__(
        self, A: Any, *, transpose: bool = False, device: _Device | None = None
    ) -> None: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def algorithm(self) -> str: ...
    def spmv(
        self,
        x: _ArrayT,
        *,
        y: _ArrayT | None = None,
        alpha: float = 1.0,
        beta: float = 0.0,
        semiring: str = "plus-times",
    ) -> _ArrayT: ...
    def spmm(
        self, X: _ArrayT, *, Y: _ArrayT | None = None, alpha: float = 1.0, beta: float = 0.0
    ) -> _ArrayT: ...
