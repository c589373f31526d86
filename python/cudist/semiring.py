"""Matrix products over semirings: C[i, j] = add over k of mul(A[i, k], B[k, j])."""

from . import _cudist
from ._frameworks import as_array, expect_2d, placed

__all__ = ["minplus", "semiring_product"]


def semiring_product(A, B, semiring="min-plus", *, out=None, accumulate=False, witness=False,
                     device=None):
    """C = A (x) B over a semiring: C[i, j] = add_k mul(A[i, k], B[k, j]).

    Parameters
    ----------
    A : (m, d) array; B : (d, n) array of the same dtype: float32, float64, int32 or int16
    semiring : str
        'min-plus' (shortest paths; +inf = no edge), 'max-plus' (longest paths), 'min-max'
        (bottleneck paths), 'max-min' (widest paths), 'or-and' (reachability, results 0/1) or
        'plus-times' (the ordinary product). For int32 / int16 the dtype's largest (smallest)
        value stands for +inf (-inf), and sums saturate instead of wrapping around.
    out : (m, n) array of A's dtype, optional; with accumulate=True, C = out (+) (A (x) B).
    witness : bool or (m, n) int32 array
        Also return, per entry, the smallest k that achieves it (-1 where no term beats the
        semiring's zero). With accumulate, pass the witness array of the earlier product.
    device : where to compute, as for cudist.cdist.

    Returns C, or (C, witness). Arrays, devices and streams follow cudist.cdist's rules.
    """
    A, B = as_array(A), as_array(B)
    expect_2d(A, "A")
    expect_2d(B, "B")
    if accumulate and (out is None or witness is True):
        raise ValueError("semiring_product: accumulate=True needs out (and the witness array "
                         "to accumulate into, when witness is wanted)")
    with placed(A, device) as at:
        shape = (A.shape[0], B.shape[1])
        result = at.empty(shape, at.dtype_name(A)) if out is None else out
        if witness is True:
            witnesses = at.empty(shape, "int32")
        else:
            witnesses = None if witness is False or witness is None else witness
        _cudist.semiring_product(
            at.export(A), at.export(B), at.export(as_array(result)), semiring.lower(),
            accumulate, None if witnesses is None else at.export(as_array(witnesses)),
            at.device, at.stream)
    return result if witnesses is None else (result, witnesses)


def minplus(A, B, *, out=None, witness=False, device=None):
    """The distance product C[i, j] = min_k A[i, k] + B[k, j] (+inf: no edge); see
    semiring_product, of which this is the 'min-plus' case."""
    return semiring_product(A, B, "min-plus", out=out, witness=witness, device=device)
