//===- BundleDir.h - A bundle directory for the runtime's tests -*- C++ -*-===//
//
// A temporary directory holding a manifest (and placeholder images),
// removed at the end of the test. Its name carries the process id, so the
// test processes ctest runs in parallel never share one.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_TEST_UNIT_BUNDLEDIR_H
#define FMLP_TEST_UNIT_BUNDLEDIR_H

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fmlp::test {

class BundleDir {
public:
  explicit BundleDir(const std::string &manifest, bool withPtx = true) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("fmlp-runtime-test-" + std::to_string(getpid()) + "-" +
             std::to_string(++counter));
    std::filesystem::create_directories(path_);
    std::ofstream(path_ / "manifest.json") << manifest;
    if (withPtx) {
      std::ofstream(path_ / "kernels.ptx") << "// no kernels\n";
      // For manifests written by fmlp-compile, which name a cubin too.
      std::ofstream(path_ / "kernels.cubin") << "no kernels\n";
    }
  }
  ~BundleDir() { std::filesystem::remove_all(path_); }
  BundleDir(const BundleDir &) = delete;
  BundleDir &operator=(const BundleDir &) = delete;

  std::string path() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

} // namespace fmlp::test

#endif // FMLP_TEST_UNIT_BUNDLEDIR_H
