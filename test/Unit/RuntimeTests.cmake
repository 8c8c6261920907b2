# The runtime's tests: they link the runtime alone (no MLIR), as its users
# do. Included by test/Unit/CMakeLists.txt in the full build, and by
# runtime/CMakeLists.txt in a build of the runtime alone with
# FMLP_RUNTIME_TESTS=ON (the sanitized build of
# scripts/runtime-sanitized.sh), so the two build the same tests.
find_package(GTest REQUIRED)
include(GoogleTest)
set(FMLP_UNIT_DIR ${CMAKE_CURRENT_LIST_DIR})

add_executable(FMLPRuntimeTests ${FMLP_UNIT_DIR}/RuntimeTest.cpp)
set_target_properties(FMLPRuntimeTests PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(FMLPRuntimeTests PRIVATE fmlp_runtime GTest::gtest_main)
gtest_discover_tests(FMLPRuntimeTests TEST_PREFIX "runtime/"
  DISCOVERY_MODE PRE_TEST
  PROPERTIES ENVIRONMENT "FMLP_LIBCUDA=libcuda-absent-for-fmlp-tests.so.1")

# The runtime's launch path on a stand-in for libcuda.so.1 (no GPU needed).
add_library(fmlp_fake_cuda SHARED ${FMLP_UNIT_DIR}/FakeCudaDriver.cpp)
add_executable(FMLPRuntimeLaunchTests ${FMLP_UNIT_DIR}/RuntimeLaunchTest.cpp
  ${FMLP_UNIT_DIR}/RuntimeLanesTest.cpp)
set_target_properties(FMLPRuntimeLaunchTests PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(FMLPRuntimeLaunchTests PRIVATE
  FMLP_FAKE_CUDA="$<TARGET_FILE:fmlp_fake_cuda>")
target_link_libraries(FMLPRuntimeLaunchTests PRIVATE fmlp_runtime
  fmlp_fake_cuda GTest::gtest_main)
gtest_discover_tests(FMLPRuntimeLaunchTests TEST_PREFIX "runtime/"
  DISCOVERY_MODE PRE_TEST
  PROPERTIES ENVIRONMENT "FMLP_LIBCUDA=$<TARGET_FILE:fmlp_fake_cuda>")

# Tampered manifests through the runtime on the stand-in driver; a fixed
# seed and a few hundred cases here, thousands in scripts/fuzz-runtime.sh.
find_package(nlohmann_json 3 REQUIRED)
add_executable(FMLPRuntimeTamperTests ${FMLP_UNIT_DIR}/RuntimeTamperTest.cpp)
set_target_properties(FMLPRuntimeTamperTests PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(FMLPRuntimeTamperTests PRIVATE
  FMLP_FAKE_CUDA="$<TARGET_FILE:fmlp_fake_cuda>"
  FMLP_TAMPER_MANIFEST="${FMLP_UNIT_DIR}/Inputs/llama-7b-mlp.manifest.json"
  FMLP_TAMPER_CHUNKED_MANIFEST="${FMLP_UNIT_DIR}/Inputs/llama-7b-mlp-x-c1024.manifest.json")
target_link_libraries(FMLPRuntimeTamperTests PRIVATE fmlp_runtime
  fmlp_fake_cuda nlohmann_json::nlohmann_json GTest::gtest_main)
gtest_discover_tests(FMLPRuntimeTamperTests TEST_PREFIX "runtime/"
  DISCOVERY_MODE PRE_TEST
  PROPERTIES ENVIRONMENT "FMLP_LIBCUDA=$<TARGET_FILE:fmlp_fake_cuda>")
