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

/// A row-major [rows, cols] host buffer in an entry point's element type.
class HostTensor {
public:
  HostTensor(HostElement element, int64_t rows, int64_t cols);

  int64_t rows() const { return rowCount; }
  int64_t cols() const { return colCount; }
  int64_t size() const { return rowCount * colCount; }
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
  int64_t rowCount, colCount;
  std::vector<unsigned char> bytes;
  struct Descriptor {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref;
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
