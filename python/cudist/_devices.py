"""Which devices this build of cudist can compute on."""

from . import _cudist


def cuda_available():
    """True when this build has the CUDA backend and at least one CUDA GPU is usable."""
    return _cudist.cuda_device_count() > 0


def devices():
    """The devices cudist can compute on here: ['cpu'] followed by 'cuda:N' for each GPU."""
    return ["cpu"] + [f"cuda:{index}" for index in range(_cudist.cuda_device_count())]
