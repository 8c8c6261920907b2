//===- EntryKind.h - The kinds of entry point a block compiles to -*- C++ -*-===//
//
// A block's entry points: `forward` (y, and the activations the backward
// reads, saved), `backward` (the gradients, consuming what forward saved)
// and `forward_nograd` (y alone). Their names are the planned IR's
// `fmlp.entry` attribute and the bundle manifest's "kind"; the compiler
// writes them and the runtime reads them through this one list. Plain C++
// without MLIR, like Target.h, so that both share it.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_ENTRYKIND_H
#define FMLP_ENTRYKIND_H

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mlir::fmlp {

enum class EntryKind { forward, backward, forward_nograd };

inline constexpr std::array<std::string_view, 3> kEntryKindNames = {
    "forward", "backward", "forward_nograd"};

constexpr std::string_view nameOf(EntryKind kind) {
  return kEntryKindNames[static_cast<size_t>(kind)];
}

/// The kind named `name`, or nullopt for any other text.
constexpr std::optional<EntryKind> entryKindNamed(std::string_view name) {
  for (size_t i = 0; i < kEntryKindNames.size(); ++i)
    if (kEntryKindNames[i] == name)
      return static_cast<EntryKind>(i);
  return std::nullopt;
}

/// "forward, backward or forward_nograd", for messages.
inline std::string entryKindList() {
  std::string list;
  for (size_t i = 0; i < kEntryKindNames.size(); ++i)
    list += std::string(i == 0 ? ""
                        : i + 1 == kEntryKindNames.size() ? " or "
                                                           : ", ") +
            std::string(kEntryKindNames[i]);
  return list;
}

} // namespace mlir::fmlp

#endif // FMLP_ENTRYKIND_H
