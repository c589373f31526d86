// Releasing the GIL for a long cudist call without losing Ctrl-C. While the GIL is released
// Python cannot run its SIGINT handler, so a KeyboardInterrupt would wait for the whole call.
// Instead, for a call on the main thread while Python's default SIGINT handler is in place, a C
// handler is installed for the call's duration that requests a cudist interrupt (the library
// polls it between tiles and throws cudist::Interrupted, which errors.cpp raises as
// KeyboardInterrupt). Elsewhere (other threads, a user's own SIGINT handler) it only releases
// the GIL.
#pragma once

#include <signal.h>

#include <optional>

#include <nanobind/nanobind.h>

namespace cudist::python {

class InterruptibleRelease {
 public:
  /// Call with the GIL held; releases it.
  InterruptibleRelease();
  /// Takes the GIL back and restores Python's SIGINT handler. A Ctrl-C that came too late to
  /// stop the call is handed to Python, which raises KeyboardInterrupt as usual.
  ~InterruptibleRelease();

  InterruptibleRelease(InterruptibleRelease const&) = delete;
  InterruptibleRelease& operator=(InterruptibleRelease const&) = delete;

 private:
  bool handles_sigint_ = false;
  struct sigaction python_handler_ {};
  std::optional<nanobind::gil_scoped_release> released_;
};

}  // namespace cudist::python
