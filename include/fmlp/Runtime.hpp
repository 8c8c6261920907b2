//===- Runtime.hpp - A thin C++ wrapper over fmlp/Runtime.h -----*- C++ -*-===//
//
// RAII ownership of a bundle and exceptions instead of status codes; the C
// API does the work.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_HPP
#define FMLP_RUNTIME_HPP

#include "fmlp/Runtime.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fmlp {

/// A failed runtime call: status() says which kind, what() the details.
class RuntimeError : public std::runtime_error {
public:
  RuntimeError(fmlp_status status, const std::string &message)
      : std::runtime_error(std::string(fmlp_status_name(status)) + ": " +
                           message),
        status_(status) {}
  fmlp_status status() const { return status_; }

private:
  fmlp_status status_;
};

inline void check(fmlp_status status) {
  if (status != FMLP_OK)
    throw RuntimeError(status, fmlp_last_error());
}

class Bundle {
public:
  explicit Bundle(const std::string &directory) {
    check(fmlp_bundle_open(directory.c_str(), &handle_));
  }
  ~Bundle() { fmlp_bundle_close(handle_); }
  Bundle(const Bundle &) = delete;
  Bundle &operator=(const Bundle &) = delete;
  Bundle(Bundle &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Bundle &operator=(Bundle &&other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }

  /// "fmlp 0.2.0": the compiler that wrote the bundle ("" before 0.2.0).
  std::string compiler() const { return fmlp_bundle_compiler(handle_); }
  std::string chip() const { return fmlp_bundle_chip(handle_); }

  /// Loads the kernels into the current CUDA context.
  void load() { check(fmlp_bundle_load(handle_)); }
  /// See fmlp_bundle_check_saved.
  void checkSaved(bool enabled) { fmlp_bundle_check_saved(handle_, enabled); }
  /// See fmlp_bundle_serial_launches.
  void serialLaunches(bool enabled) {
    fmlp_bundle_serial_launches(handle_, enabled);
  }

  int entry(const std::string &name) const {
    int index = -1;
    check(fmlp_entry_find(handle_, name.c_str(), &index));
    return index;
  }
  std::vector<fmlp_argument_info> arguments(int entry) const {
    std::vector<fmlp_argument_info> infos(fmlp_argument_count(handle_, entry));
    for (size_t i = 0; i < infos.size(); ++i)
      check(fmlp_argument_info_get(handle_, entry, static_cast<int>(i),
                                   &infos[i]));
    return infos;
  }
  int64_t workspaceBytes(int entry, int64_t tokens) const {
    int64_t bytes = 0;
    check(fmlp_workspace_bytes(handle_, entry, tokens, &bytes));
    return bytes;
  }
  /// fmlp_workspace_bytes_used: without the workspaces unused at T.
  int64_t workspaceBytesUsed(int entry, int64_t tokens) const {
    int64_t bytes = 0;
    check(fmlp_workspace_bytes_used(handle_, entry, tokens, &bytes));
    return bytes;
  }
  /// Launches `entry` on `stream` (a CUstream, or nullptr).
  void launch(int entry, const std::vector<fmlp_tensor> &tensors,
              void *stream = nullptr) {
    check(fmlp_launch(handle_, entry, tensors.data(),
                      static_cast<int>(tensors.size()), stream));
  }

  /// See fmlp_outputs_needed: one flag per argument of `entry`.
  std::vector<int32_t> outputsNeeded(int entry,
                                     const std::vector<int32_t> &wanted) const {
    if (wanted.size() !=
        static_cast<size_t>(fmlp_argument_count(handle_, entry)))
      throw RuntimeError(FMLP_ERROR_COUNT,
                         "outputsNeeded: one flag per argument of the entry "
                         "point");
    std::vector<int32_t> needed(wanted.size());
    check(fmlp_outputs_needed(handle_, entry, wanted.data(), needed.data()));
    return needed;
  }

  fmlp_bundle *get() const { return handle_; }

private:
  fmlp_bundle *handle_ = nullptr;
};

/// A dense row-major tensor descriptor over `data`.
inline fmlp_tensor denseTensor(void *data, fmlp_dtype dtype,
                               const std::vector<int64_t> &sizes) {
  fmlp_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(sizes.size());
  // stride[d] = sizes[d + 1] x ... x sizes[rank - 1]; the product of all
  // sizes (which may overflow: fmlp_launch refuses such a tensor) is never
  // formed.
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.sizes[d] = sizes[d];
    t.strides[d] = stride;
    if (d > 0)
      stride *= sizes[d];
  }
  return t;
}

} // namespace fmlp

#endif // FMLP_RUNTIME_HPP
