#include "interruptible_release.hpp"

#include <exception>

#include "cudist/core/interrupt.hpp"

namespace nb = nanobind;

namespace cudist::python {
namespace {

extern "C" void request_interrupt_on_sigint(int) { request_interrupt(); }

/// Whether a SIGINT now would raise KeyboardInterrupt in this thread: it is the main thread and
/// Python's default handler is installed.
bool python_would_raise_keyboard_interrupt() {
  nb::module_ const threading = nb::module_::import_("threading");
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return false;
  nb::module_ const signal = nb::module_::import_("signal");
  return signal.attr("getsignal")(SIGINT).is(signal.attr("default_int_handler"));
}

}  // namespace

InterruptibleRelease::InterruptibleRelease() {
  if (python_would_raise_keyboard_interrupt()) {
    struct sigaction action {};
    action.sa_handler = request_interrupt_on_sigint;
    sigemptyset(&action.sa_mask);
    clear_interrupt();
    handles_sigint_ = sigaction(SIGINT, &action, &python_handler_) == 0;
  }
  released_.emplace();
}

InterruptibleRelease::~InterruptibleRelease() {
  released_.reset();
  if (!handles_sigint_) return;
  sigaction(SIGINT, &python_handler_, nullptr);
  if (interrupt_requested()) {
    clear_interrupt();
    // When the call threw Interrupted, errors.cpp raises KeyboardInterrupt; otherwise the call
    // finished before it noticed the signal, which Python still has to see.
    if (std::uncaught_exceptions() == 0) PyErr_SetInterrupt();
  }
}

}  // namespace cudist::python
