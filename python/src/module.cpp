// The extension module cudist._cudist. It is private: the package cudist (python/cudist) wraps
// it, choosing devices and streams and allocating outputs with the caller's array framework.
#include <nanobind/nanobind.h>

#include "bindings.hpp"

NB_MODULE(_cudist, m) {
  m.doc() = "Bindings of the cudist C++ library; use the cudist package instead.";
  cudist::python::bind_errors(m);
  cudist::python::bind_devices(m);
  cudist::python::bind_distance(m);
  cudist::python::bind_neighbors(m);
  cudist::python::bind_semiring(m);
  cudist::python::bind_graph(m);
  cudist::python::bind_sparse(m);
  cudist::python::bind_timeline(m);
}
