//===- Bundle.cpp - Kernel bundles: what the runtime loads ----------------===//

#include "lib/Pipeline/Bundle.h"
#include "lib/Pipeline/PlanSummary.h"

#include "codegen/KernelBuilder.h"
#include "dialects/FMLP/FMLPAttrs.h"
#include "passes/ViewOffset.h"
#include "runtime/Manifest.h"

#include "fmlp/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::fmlp;

std::vector<KernelResources> mlir::fmlp::parsePtxasReport(StringRef report) {
  std::vector<KernelResources> kernels;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
                    "([0-9]+) bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  llvm::Regex shared("([0-9]+) bytes smem");
  // ptxas's performance notes on WGMMA (C75xx: WGMMAs serialized, fences
  // injected), each naming its kernel.
  llvm::Regex wgmmaNote("\\((C75[0-9]+)\\) (.*) in (the )?function '([^']+)'");
  SmallVector<StringRef> lines;
  report.split(lines, '\n');
  SmallVector<StringRef> match;
  llvm::StringMap<std::string> notes;
  for (StringRef line : lines) {
    // Printed apart from the kernel's own lines: matched by name below.
    if (wgmmaNote.match(line, &match)) {
      notes[match[4]] = (match[1] + ": " + match[2]).str();
      continue;
    }
    if (entry.match(line, &match)) {
      kernels.push_back({match[1].str()});
      continue;
    }
    if (kernels.empty())
      continue;
    KernelResources &k = kernels.back();
    if (frame.match(line, &match)) {
      match[1].getAsInteger(10, k.stackBytes);
      match[2].getAsInteger(10, k.spillStoreBytes);
      match[3].getAsInteger(10, k.spillLoadBytes);
    }
    if (used.match(line, &match))
      match[1].getAsInteger(10, k.registers);
    if (shared.match(line, &match))
      match[1].getAsInteger(10, k.sharedBytes);
  }
  for (KernelResources &k : kernels)
    k.wgmmaNote = notes.lookup(k.name);
  return kernels;
}

namespace {

std::string dtypeName(Type element) {
  if (element.isBF16())
    return "bf16";
  if (element.isF16())
    return "f16";
  return "f32";
}

llvm::json::Array toJson(ArrayRef<int64_t> values) {
  llvm::json::Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

/// The entry argument a launch operand views and where the view starts
/// in it (passes/ViewOffset.h): element offset + tokenStride * c0, c0 the
/// first token of the chunk of `chunkLoop` (tokenStride 0 outside it).
FailureOr<ViewOffset> traceToArgument(Value operand, func::FuncOp entry,
                                      scf::ForOp chunkLoop,
                                      std::string &error) {
  std::string where = "a kernel operand of " + entry.getSymName().str();
  std::optional<ViewOffset> traced = traceViewOffset(operand);
  if (!traced) {
    error = where + " has an offset that is neither a constant nor the "
                    "first token of a chunk";
    return failure();
  }
  auto argument = dyn_cast<BlockArgument>(traced->root);
  if (!argument || argument.getOwner()->getParentOp() != entry) {
    error = where + " is not a view of an entry argument";
    return failure();
  }
  if (traced->chunkLoop && traced->chunkLoop != chunkLoop) {
    error = where + " moves with a loop that is not its launch's chunk loop";
    return failure();
  }
  return *traced;
}

/// The alignment (bytes) each entry argument needs: TMA reads 16-byte
/// aligned addresses, the WGMMA kernels store rows in 16-byte pieces and
/// the small_tokens kernels load them (fmlp.vector_access); the SIMT
/// kernels access single elements.
DenseMap<unsigned, int64_t> argumentAlignments(func::FuncOp func) {
  DenseMap<unsigned, int64_t> alignment;
  func.walk([&](gpu::LaunchFuncOp launch) {
    auto rows =
        launch->getAttrOfType<DenseI64ArrayAttr>("fmlp.tensor_map_box_rows");
    if ((!rows || rows.empty()) && !launch->hasAttr("fmlp.vector_access"))
      return;
    for (Value operand : launch.getKernelOperands())
      if (auto argument = dyn_cast<BlockArgument>(viewRoot(operand)))
        alignment[argument.getArgNumber()] = 16;
  });
  return alignment;
}

/// The entry arguments `launch` writes (its fmlp.written parameters,
/// traced to the arguments they view), ascending.
std::vector<unsigned> launchWrites(gpu::LaunchFuncOp launch) {
  std::vector<unsigned> written;
  auto indices = launch->getAttrOfType<DenseI64ArrayAttr>("fmlp.written");
  if (!indices)
    return written;
  for (int64_t index : indices.asArrayRef())
    if (auto argument = dyn_cast<BlockArgument>(
            viewRoot(launch.getKernelOperands()[index])))
      written.push_back(argument.getArgNumber());
  llvm::sort(written);
  written.erase(std::unique(written.begin(), written.end()), written.end());
  return written;
}

/// The entry arguments some launch of `func` writes.
llvm::SmallDenseSet<unsigned> writtenArguments(func::FuncOp func) {
  llvm::SmallDenseSet<unsigned> written;
  func.walk([&](gpu::LaunchFuncOp launch) {
    for (unsigned argument : launchWrites(launch))
      written.insert(argument);
  });
  return written;
}

/// input, output (written by the entry point), saved (kept from forward to
/// backward) or workspace (scratch of one call: PlanMemory's, and the
/// split-K kernels' that convert-fmlp-to-nvvm marks fmlp.workspace).
std::string argumentRole(func::FuncOp func, unsigned index, StringRef name,
                         const llvm::SmallDenseSet<unsigned> &written) {
  if (func.getArgAttr(index, "fmlp.saved"))
    return "saved";
  if (isWorkspaceArgument(func, index, name))
    return "workspace";
  return written.contains(index) ? "output" : "input";
}

/// The range of T a launch serves, from fmlp.min_tokens / fmlp.max_tokens
/// on the launch op (variants of one kernel for small and large T, under an
/// scf.if on T): min_tokens >= 1, max_tokens >= min_tokens; each absent
/// means 1 and no upper bound, and is left out of the manifest.
LogicalResult describeTokenRange(gpu::LaunchFuncOp launch, func::FuncOp func,
                                 llvm::json::Object &described,
                                 std::string &error) {
  auto bound = [&](StringRef name,
                   int64_t least) -> FailureOr<std::optional<int64_t>> {
    Attribute attribute = launch->getAttr(name);
    if (!attribute)
      return std::optional<int64_t>();
    // A signless integer of at most 64 bits, or an index.
    auto integer = dyn_cast<IntegerAttr>(attribute);
    bool readable = integer && (integer.getType().isIndex() ||
                                (integer.getType().isSignlessInteger() &&
                                 integer.getType().getIntOrFloatBitWidth() <=
                                     64));
    if (!readable || integer.getInt() < least) {
      std::string shown;
      llvm::raw_string_ostream os(shown);
      os << attribute;
      error = "the launch of " + launch.getKernelName().str() + " in " +
              func.getSymName().str() + " has " + name.str() + " = " + shown +
              ": not an integer of at least " + std::to_string(least);
      return failure();
    }
    return std::optional<int64_t>(integer.getInt());
  };
  FailureOr<std::optional<int64_t>> min = bound("fmlp.min_tokens", 1);
  if (failed(min))
    return failure();
  FailureOr<std::optional<int64_t>> max =
      bound("fmlp.max_tokens", min->value_or(1));
  if (failed(max))
    return failure();
  if (*min)
    described["min_tokens"] = **min;
  if (*max)
    described["max_tokens"] = **max;
  return success();
}

FailureOr<llvm::json::Object> describeEntry(func::FuncOp func,
                                            std::string &error) {
  llvm::SmallDenseSet<unsigned> written = writtenArguments(func);
  DenseMap<unsigned, int64_t> alignments = argumentAlignments(func);
  llvm::json::Object entry;
  entry["symbol"] = func.getSymName().str();
  entry["kind"] =
      func->getAttrOfType<StringAttr>("fmlp.entry").getValue().str();
  // Provenance: the contractions' operand format (bf16, f16, ieee, tf32,
  // tf32x3), from fmlp-fuse.
  if (auto precision = func->getAttrOfType<StringAttr>("fmlp.precision"))
    entry["precision"] = precision.getValue().str();
  llvm::json::Array arguments;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = dyn_cast<MemRefType>(func.getArgument(i).getType());
    if (!type || !type.getLayout().isIdentity()) {
      error = "argument " + std::to_string(i) + " of " +
              func.getSymName().str() + " is not a dense memref";
      return failure();
    }
    auto name = func.getArgAttrOfType<StringAttr>(i, "fmlp.name");
    // [..., n] with leading dimensions is [T, n] to the runtime, which
    // flattens a caller's leading dimensions the same way.
    SmallVector<int64_t> shape;
    ArrayRef<int64_t> dims = type.getShape();
    if (dims.size() > 2) {
      int64_t rows = 1;
      for (int64_t extent : dims.drop_back())
        rows = ShapedType::isDynamic(extent) || rows < 0 ? -1 : rows * extent;
      shape = {rows, dims.back()};
    } else {
      for (int64_t extent : dims)
        shape.push_back(ShapedType::isDynamic(extent) ? -1 : extent);
    }
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    std::string argumentName =
        name ? name.getValue().str() : "arg" + std::to_string(i);
    llvm::json::Object argument{
        {"name", argumentName},
        {"role", argumentRole(func, i, argumentName, written)},
        {"dtype", dtypeName(type.getElementType())},
        {"shape", toJson(shape)},
        {"alignment", std::max(elementBytes, alignments.lookup(i))},
        {"consumed", static_cast<bool>(func.getArgAttr(i, "fmlp.consumed"))}};
    arguments.push_back(std::move(argument));
  }
  entry["arguments"] = std::move(arguments);

  llvm::json::Array launches;
  int64_t staticTokens = 0;
  // The token-chunk loop (convert-fmlp-to-nvvm checked its form: from 0 to
  // T by a constant step): its launches are the manifest's per-chunk ones.
  scf::ForOp chunkLoop;
  int64_t chunkTokens = 0;
  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) {
    LaunchGeometry geometry = LaunchGeometry::readFrom(launch);
    // CUDA's grid limits, the runtime's (kMaxGrid): a grid past them would
    // be refused at every launch, so no bundle has it.
    for (int dim = 0; dim < 3; ++dim)
      if (geometry.fixed[dim] > ::fmlp::runtime::kMaxGrid[dim]) {
        error = (Twine("kernel ") + launch.getKernelName().getValue() +
                 " of " + func.getSymName() + " needs a grid of " +
                 Twine(geometry.fixed[dim]) + " blocks along " +
                 StringRef("xyz").substr(dim, 1) + ", past CUDA's " +
                 Twine(::fmlp::runtime::kMaxGrid[dim]) +
                 ": the block's widths are too large for its tiles")
                    .str();
        return WalkResult::interrupt();
      }
    auto loop = launch->getParentOfType<scf::ForOp>();
    if (loop && chunkLoop && loop != chunkLoop) {
      error = func.getSymName().str() +
              " has launches in two loops: the "
              "bundle runs one token-chunk loop per entry point";
      return WalkResult::interrupt();
    }
    if (loop && !chunkLoop) {
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!step || *step <= 0 ||
          getConstantIntValue(loop.getLowerBound()) != 0) {
        error = func.getSymName().str() +
                " has launches in a loop that is "
                "not a token-chunk loop (from 0 by a positive constant)";
        return WalkResult::interrupt();
      }
      chunkLoop = loop;
      chunkTokens = *step;
    }
    ArrayRef<int64_t> boxRows, boxCols, mapCols;
    if (auto rows = launch->getAttrOfType<DenseI64ArrayAttr>(
            "fmlp.tensor_map_box_rows"))
      boxRows = rows.asArrayRef();
    if (auto cols = launch->getAttrOfType<DenseI64ArrayAttr>(
            "fmlp.tensor_map_box_cols"))
      boxCols = cols.asArrayRef();
    if (boxCols.size() != boxRows.size()) {
      error = func.getSymName().str() + " has a launch whose tensor maps' " +
              "fmlp.tensor_map_box_rows and fmlp.tensor_map_box_cols " +
              "differ in length";
      return WalkResult::interrupt();
    }
    if (auto cols =
            launch->getAttrOfType<DenseI64ArrayAttr>("fmlp.tensor_map_cols"))
      mapCols = cols.asArrayRef();
    llvm::json::Array params;
    for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
      // T, when the block's token count is static, is written down.
      if (auto dim = operand.getDefiningOp<memref::DimOp>()) {
        int64_t rows =
            cast<MemRefType>(dim.getSource().getType()).getDimSize(0);
        if (!ShapedType::isDynamic(rows))
          staticTokens = rows;
      }
      if (index < boxRows.size()) {
        // A tensor map of a view: rows (-1: T) x cols, 128-byte swizzled
        // boxes of boxRows x boxCols elements (128 bytes a row).
        // In a per-chunk launch, rows -1 are the chunk's tokens.
        auto type = cast<MemRefType>(operand.getType());
        auto [strides, offset] = type.getStridesAndOffset();
        FailureOr<ViewOffset> traced =
            traceToArgument(operand, func, loop, error);
        if (failed(traced))
          return WalkResult::interrupt();
        int64_t rows = type.getDimSize(0);
        llvm::json::Object map{
            {"argument", cast<BlockArgument>(traced->root).getArgNumber()},
            {"offset", traced->offset},
            {"rows", ShapedType::isDynamic(rows) ? -1 : rows},
            {"cols",
             index < mapCols.size() ? mapCols[index] : type.getDimSize(1)},
            {"row_stride", strides[0]},
            {"box_rows", boxRows[index]},
            {"box_cols", boxCols[index]}};
        if (loop)
          map["token_stride"] = traced->tokenStride;
        params.push_back(llvm::json::Object{{"tensor_map", std::move(map)}});
        continue;
      }
      if (!isa<MemRefType>(operand.getType())) {
        // T; in a per-chunk launch, the chunk's (the dim of a chunk view).
        params.push_back(llvm::json::Object{{"tokens", true}});
        continue;
      }
      FailureOr<ViewOffset> traced =
          traceToArgument(operand, func, loop, error);
      if (failed(traced))
        return WalkResult::interrupt();
      llvm::json::Object pointer{
          {"argument", cast<BlockArgument>(traced->root).getArgNumber()},
          {"offset", traced->offset}};
      if (loop)
        pointer["token_stride"] = traced->tokenStride;
      params.push_back(std::move(pointer));
    }
    llvm::json::Object described{
        {"kernel", launch.getKernelName().str()},
        {"grid_tokens_per_block", toJson(geometry.tokensPerBlock)},
        {"grid_fixed", toJson(geometry.fixed)},
        {"block", toJson(geometry.block)},
        {"dynamic_shared_bytes", geometry.dynamicSharedBytes},
        {"params", std::move(params)}};
    // What the launch writes: a caller that does not want an output skips
    // the launches that write nothing else (Runtime.h, fmlp_launch).
    if (launch->hasAttr("fmlp.written")) {
      llvm::json::Array writes;
      for (unsigned argument : launchWrites(launch))
        writes.push_back(static_cast<int64_t>(argument));
      described["writes"] = std::move(writes);
    }
    if (loop)
      described["per_chunk"] = true;
    // The kernel waits for the previous ones itself (griddepcontrol): the
    // runtime may launch it programmatically.
    if (launch->hasAttr("fmlp.programmatic_launch"))
      described["programmatic_launch"] = true;
    // The stream it goes to: the caller's (absent) or the side lane's.
    if (auto lane = launch->getAttrOfType<IntegerAttr>("fmlp.lane"))
      described["lane"] = lane.getInt();
    if (failed(describeTokenRange(launch, func, described, error)))
      return WalkResult::interrupt();
    launches.push_back(std::move(described));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  entry["launches"] = std::move(launches);
  // 0: T is the caller's, read off the token-shaped arguments.
  entry["static_tokens"] = staticTokens;
  // 0: no chunk loop.
  entry["chunk_tokens"] = chunkTokens;
  return entry;
}

LogicalResult writeFile(StringRef path, StringRef contents,
                        std::string &error) {
  std::error_code code;
  llvm::raw_fd_ostream os(path, code);
  if (code) {
    error = "cannot write " + path.str() + ": " + code.message();
    return failure();
  }
  os << contents;
  return success();
}

/// Assembles `ptx` into `cubin` with ptxas -v; the report goes to `report`.
LogicalResult assemble(StringRef ptxas, StringRef chip, StringRef ptx,
                       StringRef cubin, StringRef reportPath,
                       std::string &report, std::string &error) {
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, "-v", ptx, "-o", cubin};
  std::optional<StringRef> redirects[] = {std::nullopt, reportPath, reportPath};
  std::string message;
  int status =
      llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                /*SecondsToWait=*/0, /*Memory=*/0, &message);
  auto buffer = llvm::MemoryBuffer::getFile(reportPath);
  if (buffer)
    report = (*buffer)->getBuffer().str();
  if (status != 0) {
    error = "ptxas failed (" + (message.empty() ? report : message) + ")";
    return failure();
  }
  return success();
}

} // namespace

/// The bundle's files, written into the (new, empty) `directory`.
static LogicalResult writeBundleFiles(ModuleOp module, StringRef directory,
                                      const BundleOptions &options,
                                      llvm::raw_ostream &log,
                                      std::string &error) {
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute attribute : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attribute))
        ptx += object.getObject().getValue().str();
  if (ptx.empty()) {
    error = "the module has no GPU kernels (no gated MLP block was found, or "
            "the GPU pipeline did not run)";
    return failure();
  }

  llvm::json::Array entries;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr("fmlp.entry"))
      continue;
    FailureOr<llvm::json::Object> entry = describeEntry(func, error);
    if (failed(entry))
      return failure();
    entries.push_back(std::move(*entry));
  }

  if (std::error_code code = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create " + directory.str() + ": " + code.message();
    return failure();
  }
  auto path = [&](StringRef file) {
    SmallString<256> p(directory);
    llvm::sys::path::append(p, file);
    return std::string(p);
  };
  if (failed(writeFile(path("kernels.ptx"), ptx, error)))
    return failure();

  llvm::json::Object images{{"ptx", "kernels.ptx"}};
  SmallString<256> ptxasPath(options.cudaPath);
  llvm::sys::path::append(ptxasPath, "bin", "ptxas");
  std::string ptxas = std::string(ptxasPath);
  if (!llvm::sys::fs::can_execute(ptxas)) {
    auto found = llvm::sys::findProgramByName("ptxas");
    ptxas = found ? *found : "";
  }
  TargetAttr target = getTarget(module);
  if (!ptxas.empty() && !target) {
    error = "the module has no fmlp.target (run fmlp-attach-target)";
    return failure();
  }
  if (!ptxas.empty()) {
    std::string report;
    if (failed(assemble(ptxas, target.getInfo().ptxasArch, path("kernels.ptx"),
                        path("kernels.cubin"), path("ptxas.log"), report,
                        error)))
      return failure();
    images["cubin"] = "kernels.cubin";
    int64_t limit = target.getInfo().sharedBytesPerBlock;
    // Each kernel's dynamic shared memory, from its launches.
    llvm::StringMap<int64_t> dynamicShared;
    module.walk([&](gpu::LaunchFuncOp launch) {
      int64_t &bytes = dynamicShared[launch.getKernelName()];
      bytes =
          std::max(bytes, LaunchGeometry::readFrom(launch).dynamicSharedBytes);
    });
    for (const KernelResources &k : parsePtxasReport(report)) {
      log << llvm::formatv(
          "{0,-48} {1,4} registers {2,7} B static smem {3} B stack "
          "{4} B spill stores {5} B spill loads\n",
          k.name, k.registers, k.sharedBytes, k.stackBytes, k.spillStoreBytes,
          k.spillLoadBytes);
      if (!options.checkResources)
        continue;
      if (k.stackBytes || k.spillStoreBytes || k.spillLoadBytes) {
        error = "kernel " + k.name + " spills or uses a stack frame (" +
                std::to_string(k.stackBytes) + " B stack, " +
                std::to_string(k.spillStoreBytes) + " B spill stores)";
        return failure();
      }
      if (!k.wgmmaNote.empty()) {
        error = "kernel " + k.name + ": ptxas changed its WGMMA pipeline (" +
                k.wgmmaNote + ")";
        return failure();
      }
      int64_t dynamicBytes = dynamicShared.lookup(k.name);
      if (k.sharedBytes + dynamicBytes > limit) {
        error = "kernel " + k.name + " uses " +
                std::to_string(k.sharedBytes + dynamicBytes) +
                " B of shared memory, over " + options.chip + "'s " +
                std::to_string(limit);
        return failure();
      }
    }
  } else {
    log << "ptxas not found: the bundle carries PTX only (the driver "
           "compiles it when the bundle is loaded)\n";
  }

  llvm::json::Object manifest{{"format", "fmlp-bundle"},
                              {"version", kBundleVersion},
                              {"compiler", "fmlp " FMLP_VERSION_STRING},
                              {"chip", options.chip},
                              {"images", std::move(images)},
                              {"entry_points", std::move(entries)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return writeFile(path("manifest.json"), text, error);
}

LogicalResult mlir::fmlp::writeBundle(ModuleOp module, StringRef directory,
                                      const BundleOptions &options,
                                      llvm::raw_ostream &log,
                                      std::string &error) {
  namespace fs = llvm::sys::fs;
  SmallString<256> manifestPath(directory);
  llvm::sys::path::append(manifestPath, "manifest.json");
  bool replacing = fs::exists(directory);
  if (replacing && !fs::exists(manifestPath)) {
    error = directory.str() + " exists and is not a bundle (no " +
            "manifest.json): not replaced";
    return failure();
  }
  // Beside the target (same file system, so the renames are atomic):
  // <directory>.tmp-XXXXXX.
  SmallString<256> absolute(directory);
  if (std::error_code code = fs::make_absolute(absolute)) {
    error = "cannot resolve " + directory.str() + ": " + code.message();
    return failure();
  }
  if (std::error_code code = fs::create_directories(
          llvm::sys::path::parent_path(absolute))) {
    error = "cannot create the directory of " + directory.str() + ": " +
            code.message();
    return failure();
  }
  SmallString<256> staging, previous;
  if (std::error_code code =
          fs::createUniqueDirectory(absolute + ".tmp", staging)) {
    error = "cannot create a directory beside " + directory.str() + ": " +
            code.message();
    return failure();
  }
  auto discard = [&](StringRef path) { (void)fs::remove_directories(path); };
  if (failed(writeBundleFiles(module, staging, options, log, error))) {
    discard(staging);
    return failure();
  }
  if (replacing) {
    // The old bundle moves aside first, so that a failed rename leaves it.
    if (std::error_code code =
            fs::createUniqueDirectory(absolute + ".old", previous)) {
      discard(staging);
      error = "cannot replace " + directory.str() + ": " + code.message();
      return failure();
    }
    if (std::error_code code = fs::rename(absolute, previous)) {
      discard(staging);
      discard(previous);
      error = "cannot replace " + directory.str() + ": " + code.message();
      return failure();
    }
  }
  if (std::error_code code = fs::rename(staging, absolute)) {
    discard(staging);
    if (replacing)
      (void)fs::rename(previous, absolute);
    error = "cannot move the bundle to " + directory.str() + ": " +
            code.message();
    return failure();
  }
  if (replacing)
    discard(previous);
  return success();
}
