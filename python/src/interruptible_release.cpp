#include "interruptible_release.hpp"

#include <exception>

#include "cudist/core/interrupt.hpp"

namespace nb = nanobind;

namespace cudist::python {
namespace {

extern "C" void request_interrupt_on_sigint(int) { request_interrupt(); }

/// The module `name`, imported on the first call and then kept in `kept` for good (a module stays
/// one object): importing it again each time took ~0.2 us of a small call (docs/tuning.md,
/// "Python"). Two first calls racing while the import lets go of the GIL only import it twice.
nb::handle imported(char const* name, PyObject*& kept) {
  if (kept == nullptr) kept = nb::module_::import_(name).release().ptr();
  return kept;
}

/// Whether a SIGINT now would raise KeyboardInterrupt in this thread: it is the main thread and
/// Python's default handler is installed. The attributes are read on every call, so a handler
/// installed since is seen.
bool python_would_raise_keyboard_interrupt() {
  static PyObject* threading_module = nullptr;
  static PyObject* signal_module = nullptr;
  nb::handle const threading = imported("threading", threading_module);
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return false;
  // _signal's getsignal, not signal's: that one maps the handler onto an enum, through a raised
  // and caught ValueError for a function such as default_int_handler (1.5 us of a small call).
  nb::handle const signal = imported("_signal", signal_module);
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
