// Stopping a long call from outside: a SIGINT handler (the cudist tool's) or another thread calls
// request_interrupt(); every running cudist call notices it between tiles (CPU) or between the
// kernels it launches (CUDA) and throws cudist::Interrupted. The request stays until
// clear_interrupt(), so every call running at that moment stops, and so does every later one.
#pragma once

namespace cudist {

/// Asks every running and later cudist call to stop. Async-signal-safe: a signal handler may call it.
void request_interrupt() noexcept;

/// Withdraws a request, so that calls run again (e.g. before the next command of a session).
void clear_interrupt() noexcept;

/// Whether a request is pending.
bool interrupt_requested() noexcept;

}  // namespace cudist
