// Exceptions thrown by cudist. Every user mistake becomes one of these, with a message that names
// the function, the argument and what is wrong ("cdist: x has 128 columns but y has 64").
#pragma once

#include <stdexcept>
#include <string>

namespace cudist {

/// Base of everything cudist throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument is invalid: wrong shape, dtype, value, layout or memory space.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A file could not be read or written, or its contents are malformed.
class FileError : public Error {
 public:
  using Error::Error;
};

/// The requested device is not present, or this build has no CUDA backend.
class DeviceUnavailable : public Error {
 public:
  using Error::Error;
};

/// A memory allocation (host or device) failed.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// The call stopped early because request_interrupt() was called (e.g. by a SIGINT handler);
/// its outputs hold no meaningful values.
class Interrupted : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call or kernel launch failed.
class CudaError : public Error {
 public:
  using Error::Error;
};

}  // namespace cudist
