//===- LibcudaForTests.cpp - The libcuda a runtime test binary loads ------===//
//
// Points the runtime (FMLP_LIBCUDA, read when it first loads the driver) at
// the library this test binary is built to test against, FMLP_TEST_LIBCUDA
// (CMake sets it per binary: a stand-in driver, or a name that does not
// exist), before any test runs. So the binary runs alike under ctest, under
// lit (`ninja check-fmlp`) and by hand, whatever the caller's environment.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

namespace {
const bool libcudaSet = setenv("FMLP_LIBCUDA", FMLP_TEST_LIBCUDA, 1) == 0;
} // namespace
