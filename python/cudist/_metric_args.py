"""Metric names and scipy's keyword arguments, shared by every distance-based function."""

import functools

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


# scipy's aliases that the library's table leaves out: one- and two-letter names it keeps
# unambiguous for the command line, and scipy's old name of hamming.
_SCIPY_ALIASES = {"c": "cityblock", "cb": "cityblock", "s": "seuclidean", "matching": "hamming"}


def metric_name(metric):
    """scipy's name of `metric`: a name or alias in any case, or scipy's 'test_<name>' (its
    reference implementation of the same metric). TypeError for anything but a string."""
    if not isinstance(metric, str):
        raise TypeError(f"cudist: metric must be a string naming a metric or a function, got "
                        f"{type(metric).__name__}")
    return _scipy_name(metric)


@functools.lru_cache(maxsize=256)
def _scipy_name(metric):
    """metric_name of the string `metric`, kept per string (0.15 us of a small call): a metric's
    name never changes, and an unknown one raises, which is not kept."""
    name = metric.lower()
    name = name[len("test_"):] if name.startswith("test_") else name
    return _cudist.canonical_metric(_SCIPY_ALIASES.get(name, name))


# metric_params without keyword arguments, the common case: built once (0.25 us a call).
_DEFAULT_PARAMS = (2.0, None, None, None)


def metric_params(who, metric, kwargs):
    """(p, w, V, VI), in the extension's order of its arguments, after scipy's check of which
    metric takes which."""
    if not kwargs:
        return _DEFAULT_PARAMS
    allowed = _METRIC_KWARGS.get(metric, ("w",))
    for key in kwargs:
        if key not in allowed:
            takes = ", ".join(allowed) if allowed else "no keyword arguments"
            raise TypeError(f"{who}() got an unexpected keyword argument '{key}' for metric "
                            f"'{metric}' (it takes {takes})")
    return (float(kwargs.get("p", 2.0)), host_float64(kwargs.get("w")),
            host_float64(kwargs.get("V")), host_float64(kwargs.get("VI")))
