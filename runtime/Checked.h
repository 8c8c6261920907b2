//===- Checked.h - Overflow-checked int64 arithmetic ----------*- C++ -*-===//
//
// The runtime depends on nothing from LLVM, so it cannot use
// llvm::checkedMul; these are the same functions over the compiler's
// overflow builtins. Every size the runtime computes from a manifest or a
// caller's T goes through them: an overflow is an empty optional, which the
// caller turns into a named error, never a wrapped size.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_CHECKED_H
#define FMLP_RUNTIME_CHECKED_H

#include <cstdint>
#include <optional>

namespace fmlp::runtime {

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a * b + c, all or nothing.
inline std::optional<int64_t> checkedMulAdd(int64_t a, int64_t b, int64_t c) {
  if (std::optional<int64_t> product = checkedMul(a, b))
    return checkedAdd(*product, c);
  return std::nullopt;
}

} // namespace fmlp::runtime

#endif // FMLP_RUNTIME_CHECKED_H
