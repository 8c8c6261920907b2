//===- CpuRunner.h - Run planned entry points in-process --------*- C++ -*-===//
//
// Compiles a module that went through fmlp-plan-pipeline and
// fmlp-cpu-pipeline with MLIR's ExecutionEngine and calls its entry points
// on host buffers. This is how the kernel plan runs on machines without a
// GPU (fmlp-run, the numerical tests).
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_EXECUTION_CPURUNNER_H
#define FMLP_LIB_EXECUTION_CPURUNNER_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::fmlp {

enum class HostElement { F32, BF16, F16 };

/// A row-major host buffer in an entry point's element type. Seen as a
/// matrix, its rows are all extents but the last.
class HostTensor {
public:
  HostTensor(HostElement element, std::vector<int64_t> shape);
  HostTensor(HostElement element, int64_t rows, int64_t cols)
      : HostTensor(element, std::vector<int64_t>{rows, cols}) {}

  const std::vector<int64_t> &shape() const { return extents; }
  int64_t cols() const { return extents.back(); }
  int64_t rows() const { return size() / cols(); }
  int64_t size() const;
  /// Views the same elements under `shape`, of the same size and last extent.
  void reshape(std::vector<int64_t> shape) { extents = std::move(shape); }
  /// Stores `value` rounded to the element type (round to nearest even).
  void set(int64_t index, double value);
  double get(int64_t index) const;
  std::vector<double> toDoubles() const;
  /// Fills every element with NaN, so that an element nobody writes shows.
  void poison();
  /// The memref descriptor an entry point takes (valid while this lives).
  void *descriptor();

private:
  HostElement element;
  std::vector<int64_t> extents;
  std::vector<unsigned char> bytes;
  /// The memref descriptor: allocated and aligned pointers, offset, sizes,
  /// strides, as 64-bit words.
  std::vector<int64_t> memref;
};

/// A JIT-compiled planned module.
class CpuModule {
public:
  /// Compiles `module`, which must be in the LLVM dialect.
  static std::unique_ptr<CpuModule> compile(ModuleOp module,
                                            std::string &error);

  /// Calls the entry point `name` (e.g. "mlp.forward") with `arguments` in
  /// the order its signature gives (inputs, outputs, saved, workspace).
  bool call(const std::string &name, const std::vector<HostTensor *> &arguments,
            std::string &error);

private:
  std::unique_ptr<ExecutionEngine> engine;
};

} // namespace mlir::fmlp

#endif // FMLP_LIB_EXECUTION_CPURUNNER_H
