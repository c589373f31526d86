// cudist's C++ exceptions as Python exceptions, carrying the library's message unchanged:
//   InvalidArgument -> ValueError        FileError   -> OSError
//   DeviceUnavailable -> DeviceUnavailableError (a RuntimeError)
//   OutOfMemory -> OutOfMemoryError (a MemoryError)
//   CudaError -> CudaError (a RuntimeError)      any other cudist::Error -> RuntimeError
//   NegativeCycle (apsp) -> NegativeCycleError (a ValueError) with the vertex as .vertex
//   Interrupted (Ctrl-C during a call, see interruptible_release.hpp) -> KeyboardInterrupt
#include <exception>
#include <string>

#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "cudist/core/error.hpp"
#include "cudist/graph/apsp.hpp"

namespace nb = nanobind;

namespace cudist::python {
namespace {

// Created once at import; the module keeps them alive.
PyObject* device_unavailable_error = nullptr;
PyObject* out_of_memory_error = nullptr;
PyObject* cuda_error = nullptr;
PyObject* negative_cycle_error = nullptr;

PyObject* new_exception(nb::module_& m, char const* name, PyObject* base, char const* doc) {
  std::string const qualified = std::string("cudist.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

void translate(std::exception_ptr const& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (NegativeCycle const& e) {
    nb::object error = nb::handle(negative_cycle_error)(e.what());
    error.attr("vertex") = e.vertex();
    PyErr_SetObject(negative_cycle_error, error.ptr());
  } catch (InvalidArgument const& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (FileError const& e) {
    PyErr_SetString(PyExc_OSError, e.what());
  } catch (DeviceUnavailable const& e) {
    PyErr_SetString(device_unavailable_error, e.what());
  } catch (OutOfMemory const& e) {
    PyErr_SetString(out_of_memory_error, e.what());
  } catch (CudaError const& e) {
    PyErr_SetString(cuda_error, e.what());
  } catch (Interrupted const& e) {
    PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
  } catch (Error const& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  // Anything else propagates to nanobind's own translators.
}

}  // namespace

void bind_errors(nb::module_& m) {
  device_unavailable_error = new_exception(
      m, "DeviceUnavailableError", PyExc_RuntimeError,
      "The requested device is not present, or this build of cudist has no CUDA backend.");
  out_of_memory_error = new_exception(m, "OutOfMemoryError", PyExc_MemoryError,
                                      "A host or GPU memory allocation inside cudist failed.");
  cuda_error = new_exception(m, "CudaError", PyExc_RuntimeError,
                             "A CUDA runtime call or kernel launch inside cudist failed.");
  negative_cycle_error = new_exception(
      m, "NegativeCycleError", PyExc_ValueError,
      "The graph has a cycle of negative length; .vertex is a vertex on it.");
  nb::register_exception_translator(translate);
}

}  // namespace cudist::python
