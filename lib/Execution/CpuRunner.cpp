//===- CpuRunner.cpp - Run planned entry points in-process ----------------===//

#include "lib/Execution/CpuRunner.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

size_t elementBytes(HostElement element) {
  return element == HostElement::F32 ? 4 : 2;
}

uint16_t toBf16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return 0x7fc0;
  // Round to nearest even on the upper 16 bits.
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float fromBf16Bits(uint16_t half) {
  uint32_t bits = uint32_t(half) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

} // namespace

HostTensor::HostTensor(HostElement element, std::vector<int64_t> shape)
    : element(element), extents(std::move(shape)),
      bytes(size() * elementBytes(element)) {}

int64_t HostTensor::size() const {
  int64_t count = 1;
  for (int64_t extent : extents)
    count *= extent;
  return count;
}

void HostTensor::set(int64_t index, double value) {
  unsigned char *at = bytes.data() + index * elementBytes(element);
  switch (element) {
  case HostElement::F32: {
    float f = static_cast<float>(value);
    std::memcpy(at, &f, 4);
    return;
  }
  case HostElement::BF16: {
    uint16_t h = toBf16Bits(static_cast<float>(value));
    std::memcpy(at, &h, 2);
    return;
  }
  case HostElement::F16: {
    _Float16 h = static_cast<_Float16>(value);
    std::memcpy(at, &h, 2);
    return;
  }
  }
}

double HostTensor::get(int64_t index) const {
  const unsigned char *at = bytes.data() + index * elementBytes(element);
  switch (element) {
  case HostElement::F32: {
    float f;
    std::memcpy(&f, at, 4);
    return f;
  }
  case HostElement::BF16: {
    uint16_t h;
    std::memcpy(&h, at, 2);
    return fromBf16Bits(h);
  }
  case HostElement::F16: {
    _Float16 h;
    std::memcpy(&h, at, 2);
    return static_cast<double>(h);
  }
  }
  return 0;
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> values(size());
  for (int64_t i = 0; i < size(); ++i)
    values[i] = get(i);
  return values;
}

void HostTensor::poison() {
  for (int64_t i = 0; i < size(); ++i)
    set(i, std::numeric_limits<double>::quiet_NaN());
}

void *HostTensor::descriptor() {
  auto pointer = reinterpret_cast<int64_t>(bytes.data());
  memref = {pointer, pointer, 0};
  memref.insert(memref.end(), extents.begin(), extents.end());
  std::vector<int64_t> strides(extents.size(), 1);
  for (int i = static_cast<int>(extents.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * extents[i + 1];
  memref.insert(memref.end(), strides.begin(), strides.end());
  return memref.data();
}

std::unique_ptr<CpuModule> CpuModule::compile(ModuleOp module,
                                              std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                                  /*sizeLevel=*/0,
                                                  /*targetMachine=*/nullptr);
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    error = llvm::toString(engine.takeError());
    return nullptr;
  }
  auto compiled = std::unique_ptr<CpuModule>(new CpuModule());
  compiled->engine = std::move(*engine);
  return compiled;
}

bool CpuModule::call(const std::string &name,
                     const std::vector<HostTensor *> &arguments,
                     std::string &error) {
  // The C interface takes a pointer to each memref descriptor; the packed
  // wrapper takes a pointer to each argument.
  std::vector<void *> descriptors, packed;
  for (HostTensor *argument : arguments)
    descriptors.push_back(argument->descriptor());
  for (void *&descriptor : descriptors)
    packed.push_back(&descriptor);
  llvm::Error result = engine->invokePacked("_mlir_ciface_" + name, packed);
  if (!result)
    return true;
  error = llvm::toString(std::move(result));
  return false;
}
