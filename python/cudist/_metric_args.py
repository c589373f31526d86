"""Metric names and scipy's keyword arguments, shared by every distance-based function."""

from . import _cudist
from ._frameworks import host_float64

# The keyword arguments each metric takes, as scipy.spatial.distance defines them: a metric not
# listed takes only the weights w. Anything else is a TypeError, as in scipy.
_METRIC_KWARGS = {
    "minkowski": ("p", "w"),
    "seuclidean": ("V",),
    "mahalanobis": ("VI",),
    "jensenshannon": (),
    "inner_product": (),
    "hamming_bits": (),
}


def metric_name(metric):
    """scipy's name of `metric` (a name or alias, any case); TypeError for a callable."""
    if not isinstance(metric, str):
        raise TypeError(
            "cudist: metric must be a string naming a metric (callables are not supported; "
            f"use scipy.spatial.distance for them), got {type(metric).__name__}"
        )
    return _cudist.canonical_metric(metric.lower())


def metric_params(who, metric, kwargs):
    """p, w, V and VI for the extension, after scipy's check of which metric takes which."""
    allowed = _METRIC_KWARGS.get(metric, ("w",))
    for key in kwargs:
        if key not in allowed:
            takes = ", ".join(allowed) if allowed else "no keyword arguments"
            raise TypeError(f"{who}() got an unexpected keyword argument '{key}' for metric "
                            f"'{metric}' (it takes {takes})")
    return {
        "p": float(kwargs.get("p", 2.0)),
        "w": host_float64(kwargs.get("w")),
        "V": host_float64(kwargs.get("V")),
        "VI": host_float64(kwargs.get("VI")),
    }
