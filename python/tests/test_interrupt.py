"""Ctrl-C during a long cudist call: the call stops within a second or two with
KeyboardInterrupt (the library polls its interrupt flag between tiles while the GIL is released),
and cudist works normally afterwards. The signal comes from a timer thread, as a real SIGINT."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import cudist


def long_call(rng, device):
    if device == "cpu":
        # 30000^2 x 256 float32: minutes on the CPU backend, so only an interrupt ends it in time.
        x = rng.standard_normal((30000, 256)).astype(np.float32)
        return lambda: cudist.knn(x, x, 5, device="cpu")
    # One fused top-k kernel of seconds on an H100: 32768 queries x 4 M rows x 64 (a random
    # block repeated; the kernel's blocks poll the interrupt between column tiles). Cityblock:
    # euclidean float32 takes the tensor cores and ends this job before the signal.
    block = rng.standard_normal((1 << 14, 64)).astype(np.float32)
    x, y = np.tile(block, (2, 1)), np.tile(block, (256, 1))
    return lambda: cudist.knn(x, y, 1, metric="cityblock", device=device)


def sigint_after(seconds):
    sent = []

    def send():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, send)
    timer.start()
    return timer, sent


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="SIGINT goes to the main thread")
@pytest.mark.skipif(signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
                    reason="SIGINT is ignored in this process (started in the background by a shell), so "
                           "Python raises no KeyboardInterrupt and cudist leaves it ignored")
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_sigint_stops_a_long_call_with_keyboard_interrupt(rng, device):
    call = long_call(rng, device)
    timer, sent = sigint_after(0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    assert sent, "the call ended before the signal was sent"
    stopped_after = time.monotonic() - sent[0]
    assert stopped_after < 2.0, f"took {stopped_after:.2f} s to stop"

    # The interrupt is spent: the next call runs to the end and is right.
    x = rng.standard_normal((50, 4))
    np.testing.assert_allclose(cudist.cdist(x, x, device=device)[3, 7], np.linalg.norm(x[3] - x[7]), rtol=1e-12)


def test_a_sigint_handler_of_the_user_is_left_in_charge(rng):
    # With the user's own handler the call is not cut short: the handler runs once it returns.
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        x = rng.standard_normal((3000, 64)).astype(np.float32)
        timer, sent = sigint_after(0.05)
        d = cudist.cdist(x, x, device="cpu")
        timer.join()
        time.sleep(0.01)  # let the handler run if the signal came after the call
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT] and d.shape == (3000, 3000)
