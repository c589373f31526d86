"""Spans of the CUDIST_TIMELINE trace (include/cudist/core/timeline.hpp) around the package's
public calls, so that a trace shows the Python side of a call (argument conversion, output
allocation) beside the library's own steps."""

import functools

from . import _cudist


def timed(function):
    """`function`, recorded as the span "cudist.<name> (Python)" while CUDIST_TIMELINE records."""
    name = f"cudist.{function.__name__} (Python)"

    @functools.wraps(function)
    def call(*args, **kwargs):
        if not _cudist.timeline_on():
            return function(*args, **kwargs)
        with _cudist.TimelineSpan(name):
            return function(*args, **kwargs)

    return call
