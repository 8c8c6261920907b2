//===- RecognizeRobustnessTest.cpp - fmlp-recognize on many inputs --------===//
//
// Two robustness checks of fmlp-recognize:
//
// 1. Every IR case in the project's tests and examples (each `// -----`
//    chunk of each .mlir file that parses and verifies) goes through the pass
//    without failure, and the result verifies.
// 2. Mutants of every single-block positive case: each mutation has an
//    expected outcome derived from the IR, not from the pass, and the pass
//    must produce valid IR that is fused exactly when expected:
//    - swapping the operands of a commutative op keeps the block;
//    - swapping the operands of a subtraction or a division breaks it;
//    - an extra user of a value computed inside the block breaks it; one of
//      a value outside it (a weight view, an accumulator, x) keeps it;
//    - scaling a floating-point constant of an unscaled block breaks it;
//    - giving one projection of x a different input breaks it (so does
//      giving the only projection of x, a fused gate_up one, a different
//      input while its halves are sliced with x's extents);
//    - feeding the down projection another value than A breaks it;
//    - moving a slice of a fused gate_up projection (Phi3) off its half
//      breaks it;
//    - negating the payload of a copy or cast generic that prepares a weight
//      or bias (read as a broadcast, transpose or cast) never leaves the
//      same block.
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"

#include "dialects/FMLP/FMLPOps.h"
#include "passes/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr StringLiteral kSourceDir = FMLP_SOURCE_DIR;

/// The `// -----` chunks of every .mlir file below `directory`, in a stable
/// order, each named `path:chunk`.
std::vector<std::pair<std::string, std::string>>
readChunks(StringRef directory) {
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  llvm::sort(files);
  std::vector<std::pair<std::string, std::string>> chunks;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer)
      continue;
    SmallVector<StringRef> parts;
    (*buffer)->getBuffer().split(parts, "// -----");
    for (auto [index, part] : llvm::enumerate(parts))
      chunks.emplace_back(file + ":" + std::to_string(index), part.str());
  }
  return chunks;
}

class RecognizeRobustness : public ::testing::Test {
protected:
  RecognizeRobustness() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // IREE's output in generic form (test/Frontends/*-generic-*) holds ops
    // of dialects fmlp does not know: they are read as opaque operations,
    // as fmlp-opt --allow-unregistered-dialect reads them.
    context.allowUnregisteredDialects();
  }

  /// Parses and verifies `source`, or returns null (silently: the corpus
  /// holds invalid IR on purpose).
  OwningOpRef<ModuleOp> parseQuietly(StringRef source) {
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// Runs fmlp-recognize; fails if the pass fails or leaves invalid IR.
  LogicalResult recognize(ModuleOp module, std::string &diagnostics) {
    ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
      diagnostics += diagnostic.str() + "\n";
      return success();
    });
    PassManager pm(&context);
    pm.addPass(createRecognizePass());
    if (failed(pm.run(module)))
      return failure();
    return verify(module);
  }

  static unsigned countFused(ModuleOp module) {
    unsigned count = 0;
    module.walk([&](GatedMlpOp) { ++count; });
    return count;
  }

  MLIRContext context;
};

TEST_F(RecognizeRobustness, EveryTestCaseStaysValid) {
  unsigned valid = 0, invalid = 0, fused = 0;
  for (StringRef directory : {"test", "examples"}) {
    for (auto &[name, source] :
         readChunks((kSourceDir + "/" + directory).str())) {
      OwningOpRef<ModuleOp> module = parseQuietly(source);
      if (!module) {
        ++invalid;
        continue;
      }
      ++valid;
      std::string diagnostics;
      EXPECT_TRUE(succeeded(recognize(*module, diagnostics))) << name << "\n"
                                                              << diagnostics;
      fused += countFused(*module);
    }
  }
  std::cout << "fmlp-recognize over the project's IR: " << valid
            << " valid cases (" << fused << " gated MLP ops after the pass), "
            << invalid << " invalid on purpose and skipped\n";
  EXPECT_GT(valid, 40u);
}

//===----------------------------------------------------------------------===//
// Mutation test
//===----------------------------------------------------------------------===//

/// What the pass found in an unmutated case, in terms of the original IR.
struct Reference {
  /// The tensor the block projects, before any reshape of it.
  Value root;
  Value output;
  /// The fused operation's attributes, to tell a different block apart.
  DictionaryAttr fusedAttributes;
  /// Values computed inside the block: on a path from the root to the down
  /// projection, other than reshapes of the root.
  llvm::DenseSet<Value> interior;
  /// The down projection's result and the values after it up to the output,
  /// in order. An extra user of one of them only moves the block's end
  /// there, which is possible when it or a value before it has x's type.
  SmallVector<Value> epilogue;
  Type xType;
};

/// What a mutant must become.
enum class Expect {
  Fused,
  NotFused,
  /// A changed constant may still make a block, but never the same one.
  NotTheSameBlock,
};

/// A mutation applies to one site (the n-th matching place of a module) and
/// says whether the block must still fuse.
struct Mutation {
  std::string name;
  /// The sites of `module`, in walk order.
  std::function<SmallVector<Operation *>(ModuleOp, const Reference &)> sites;
  /// Mutates `site`; returns what the mutant must become.
  std::function<Expect(Operation *site, const Reference &, OpBuilder &)> apply;
};

bool isReshape(Operation *op) {
  return isa<tosa::ReshapeOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      op);
}

bool isContraction(Operation *op) {
  if (isa<tosa::MatMulOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Swaps the first two data operands of `op`.
void swapOperands(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    Value first = linalgOp.getDpsInputs()[0];
    op->setOperand(0, linalgOp.getDpsInputs()[1]);
    op->setOperand(1, first);
    return;
  }
  Value first = op->getOperand(0);
  op->setOperand(0, op->getOperand(1));
  op->setOperand(1, first);
}

SmallVector<Operation *> walkSites(ModuleOp module,
                                   std::function<bool(Operation *)> match) {
  SmallVector<Operation *> sites;
  module.walk([&](Operation *op) {
    if (match(op))
      sites.push_back(op);
  });
  return sites;
}

/// A new argument of `type` for the function around `op`.
Value addFunctionArgument(Operation *op, Type type) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func) {
    // Another dialect's function, parsed as an opaque operation (IREE's
    // util.func in generic form): an argument of its entry block, which no
    // signature is checked against.
    Operation *holder = getBlockHolder(op);
    return holder->getRegion(0).front().addArgument(type, holder->getLoc());
  }
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, type, {}, func.getLoc())))
    return nullptr;
  return func.getArgument(index);
}

/// True if `op` is directly in the body of a function: a func.func, or
/// another dialect's function directly in the module (opaque).
bool isInFunctionBody(Operation *op) {
  Operation *parent = op->getParentOp();
  return parent && isa_and_nonnull<ModuleOp>(parent->getParentOp()) &&
         !isa<ModuleOp>(parent);
}

/// The top-level operation's results in the block's interior, by position:
/// a value is found again in a clone by (operation index, result number).
std::vector<Mutation> makeMutations() {
  std::vector<Mutation> mutations;

  mutations.push_back(
      {"swap commutative operands",
       [](ModuleOp module, const Reference &) {
         return walkSites(module, [](Operation *op) {
           return isa<arith::MulFOp, arith::AddFOp, arith::MaximumFOp,
                      tosa::MulOp, tosa::AddOp, linalg::MulOp, linalg::AddOp>(
                      op) &&
                  op->getOperand(0) != op->getOperand(1);
         });
       },
       [](Operation *site, const Reference &, OpBuilder &) {
         swapOperands(site);
         return Expect::Fused;
       }});

  mutations.push_back({"swap subtraction or division operands",
                       [](ModuleOp module, const Reference &) {
                         return walkSites(module, [](Operation *op) {
                           return isa<arith::SubFOp, arith::DivFOp, tosa::SubOp,
                                      linalg::SubOp, linalg::DivOp>(op) &&
                                  op->getOperand(0) != op->getOperand(1);
                         });
                       },
                       [](Operation *site, const Reference &, OpBuilder &) {
                         swapOperands(site);
                         return Expect::NotFused;
                       }});

  mutations.push_back(
      {"extra user of a value",
       [](ModuleOp module, const Reference &) {
         return walkSites(module, [](Operation *op) {
           return isInFunctionBody(op) &&
                  op->getNumResults() == 1 &&
                  isa<RankedTensorType>(op->getResult(0).getType()) &&
                  !isa<tensor::EmptyOp, arith::ConstantOp, tosa::ConstOp>(op);
         });
       },
       [](Operation *site, const Reference &reference, OpBuilder &builder) {
         Value value = site->getResult(0);
         if (site->getParentOfType<func::FuncOp>()) {
           auto module = site->getParentOfType<ModuleOp>();
           builder.setInsertionPointToEnd(module.getBody());
           auto sink = func::FuncOp::create(
               builder, site->getLoc(), "fmlp_sink",
               builder.getFunctionType({value.getType()}, {}));
           sink.setPrivate();
           builder.setInsertionPointAfter(site);
           func::CallOp::create(builder, site->getLoc(), sink, value);
         } else {
           // In an opaque function (IREE's util.func) no symbol resolves:
           // the user is an opaque operation too.
           builder.setInsertionPointAfter(site);
           OperationState sink(site->getLoc(), "fmlp_test.sink");
           sink.addOperands(value);
           builder.create(sink);
         }
         if (reference.interior.contains(value))
           return Expect::NotFused;
         auto *position = llvm::find(reference.epilogue, value);
         if (position == reference.epilogue.end())
           return Expect::Fused;
         bool canEndBefore = llvm::any_of(
             llvm::make_range(reference.epilogue.begin(), position + 1),
             [&](Value end) { return end.getType() == reference.xType; });
         return canEndBefore ? Expect::Fused : Expect::NotFused;
       }});

  mutations.push_back(
      {"scale a floating-point constant",
       [](ModuleOp module, const Reference &) {
         // The constants of the function: scalars and splats. A non-splat
         // tensor constant is data (a weight that a frontend inlined), not a
         // constant of the block's function.
         auto isFunctionConstant = [](Attribute value) {
           if (isa<FloatAttr>(value))
             return true;
           auto dense = dyn_cast<DenseFPElementsAttr>(value);
           return dense && dense.isSplat();
         };
         return walkSites(module, [&](Operation *op) {
           if (auto constant = dyn_cast<arith::ConstantOp>(op))
             return isFunctionConstant(constant.getValue());
           if (auto constant = dyn_cast<tosa::ConstOp>(op))
             return isFunctionConstant(constant.getValues());
           return false;
         });
       },
       [](Operation *site, const Reference &, OpBuilder &builder) {
         auto scale = [](const APFloat &value) {
           double scaled =
               value.isZero() ? 0.25 : value.convertToDouble() * 1.25;
           APFloat result(scaled);
           bool lost;
           result.convert(value.getSemantics(), APFloat::rmNearestTiesToEven,
                          &lost);
           return result;
         };
         StringRef name = isa<tosa::ConstOp>(site) ? "values" : "value";
         Attribute value = site->getAttr(name);
         if (auto floatAttr = dyn_cast<FloatAttr>(value))
           site->setAttr(name, FloatAttr::get(floatAttr.getType(),
                                              scale(floatAttr.getValue())));
         else if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
           site->setAttr(
               name,
               dense.mapValues(dense.getElementType(), [&](const APFloat &v) {
                 return scale(v).bitcastToAPInt();
               }));
         return Expect::NotTheSameBlock;
       }});

  // A generic that copies (a broadcast or transpose of a weight or bias) or
  // casts stands for a named op only while its payload does exactly that;
  // negating what it yields makes it an elementwise function, and the block
  // either no longer matches or matches with other attributes (a gate
  // multiplier of -1, another layout, no bias). Only generics that prepare
  // the block's operands other than x are mutated: a negated x is another
  // input to the same block.
  mutations.push_back(
      {"negate a copy or cast generic's payload",
       [](ModuleOp module, const Reference &reference) {
         SetVector<Operation *> producers, xProducers;
         BackwardSliceOptions options;
         options.omitBlockArguments = true;
         if (Operation *outputOp = reference.output.getDefiningOp())
           (void)getBackwardSlice(outputOp, &producers, options);
         if (Operation *rootOp = reference.root.getDefiningOp()) {
           (void)getBackwardSlice(rootOp, &xProducers, options);
           xProducers.insert(rootOp);
         }
         return walkSites(module, [&](Operation *op) {
           auto generic = dyn_cast<linalg::GenericOp>(op);
           if (!generic || generic.getNumDpsInputs() != 1 ||
               !producers.contains(op) || xProducers.contains(op))
             return false;
           Block *body = generic.getBlock();
           unsigned payloadOps = body->getOperations().size() - 1;
           return payloadOps == 0 ||
                  (payloadOps == 1 &&
                   isa<arith::ExtFOp, arith::TruncFOp>(body->front()));
         });
       },
       [](Operation *site, const Reference &, OpBuilder &builder) {
         auto yield = cast<linalg::YieldOp>(
             cast<linalg::GenericOp>(site).getBlock()->getTerminator());
         builder.setInsertionPoint(yield);
         Value negated = arith::NegFOp::create(builder, yield.getLoc(),
                                               yield.getValues()[0]);
         yield->setOperand(0, negated);
         return Expect::NotTheSameBlock;
       }});

  // The halves of a fused gate_up projection (Phi3) are its columns
  // [0, H) and [H, 2H) only: a slice moved by 8 columns (overlapping the
  // other half, or leaving a gap) is no half.
  mutations.push_back(
      {"move a slice of a fused projection",
       [](ModuleOp module, const Reference &reference) {
         return walkSites(module, [&](Operation *op) {
           auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
           return slice && reference.interior.contains(slice.getResult()) &&
                  !ShapedType::isDynamic(slice.getStaticOffsets().back()) &&
                  !ShapedType::isDynamic(slice.getStaticSizes().back());
         });
       },
       [](Operation *site, const Reference &, OpBuilder &) {
         auto slice = cast<tensor::ExtractSliceOp>(site);
         SmallVector<int64_t> offsets(slice.getStaticOffsets());
         int64_t width = slice.getSourceType().getShape().back();
         offsets.back() += offsets.back() + slice.getStaticSizes().back() + 8 <=
                                   width
                               ? 8
                               : -8;
         slice.setStaticOffsets(offsets);
         return Expect::NotFused;
       }});

  mutations.push_back(
      {"give one use of x another input",
       [](ModuleOp module, const Reference &reference) {
         return walkSites(module, [&](Operation *op) {
           return !isa<tensor::DimOp>(op) &&
                  llvm::is_contained(op->getOperands(), reference.root);
         });
       },
       [](Operation *site, const Reference &reference, OpBuilder &) {
         unsigned dataUses =
             llvm::count_if(reference.root.getUsers(), [](Operation *user) {
               return !isa<tensor::DimOp>(user);
             });
         // Slices of a fused gate_up projection (Phi3, dynamic tokens)
         // whose sizes are tensor.dim of x keep taking x's extents.
         bool slicedByExtentsOfX =
             llvm::any_of(reference.root.getUsers(), [](Operation *user) {
               return isa<tensor::DimOp>(user) &&
                      llvm::any_of(user->getUsers(), [](Operation *dimUser) {
                        return isa<tensor::ExtractSliceOp>(dimUser);
                      });
             });
         Value replacement =
             addFunctionArgument(site, reference.root.getType());
         site->replaceUsesOfWith(reference.root, replacement);
         // With one use (a reshape both projections share), the whole block
         // now reads the new input; otherwise gate and up read different
         // tensors. Where the gate and up halves are sliced with x's
         // extents, the block would slice the new input's projection by
         // another tensor's sizes: no block.
         return dataUses == 1 && !slicedByExtentsOfX ? Expect::Fused
                                                     : Expect::NotFused;
       }});

  mutations.push_back(
      {"feed the down projection another value",
       [](ModuleOp module, const Reference &reference) {
         SmallVector<Operation *> contractions =
             walkSites(module, isContraction);
         if (contractions.empty())
           return SmallVector<Operation *>();
         Operation *down = contractions.back();
         Type inputType = down->getOperand(0).getType();
         return walkSites(module, [&](Operation *op) {
           return isInFunctionBody(op) &&
                  op->getNumResults() == 1 &&
                  op->getResult(0).getType() == inputType &&
                  op->getResult(0) != down->getOperand(0) &&
                  reference.interior.contains(op->getResult(0));
         });
       },
       [](Operation *site, const Reference &, OpBuilder &) {
         auto module = site->getParentOfType<ModuleOp>();
         Operation *down = walkSites(module, isContraction).back();
         if (!site->isBeforeInBlock(down))
           return Expect::Fused; // not applied: keeps the block
         down->setOperand(0, site->getResult(0));
         return Expect::NotFused;
       }});

  return mutations;
}

/// Finds, in `module` (the original), where the single fused block of its
/// recognized clone came from.
std::optional<Reference> findReference(ModuleOp original, ModuleOp fused) {
  GatedMlpOp op;
  unsigned count = 0;
  fused.walk([&](GatedMlpOp found) {
    op = found;
    ++count;
  });
  if (count != 1)
    return std::nullopt;

  // The original and the fused clone agree on function arguments and on
  // every operation outside the block; name values by those.
  auto locate = [&](Value fusedValue) -> Value {
    if (auto argument = dyn_cast<BlockArgument>(fusedValue)) {
      // An argument of the function holding the block (a func.func, or an
      // opaque one), found by its symbol name.
      auto name = getBlockHolder(op)->getAttrOfType<StringAttr>(
          SymbolTable::getSymbolAttrName());
      Operation *holder = SymbolTable::lookupSymbolIn(original, name);
      return holder->getRegion(0).front().getArgument(argument.getArgNumber());
    }
    Operation *def = fusedValue.getDefiningOp();
    Value found;
    original.walk([&](Operation *candidate) {
      if (!found && candidate->getName() == def->getName() &&
          candidate->getLoc() == def->getLoc())
        found =
            candidate->getResult(cast<OpResult>(fusedValue).getResultNumber());
    });
    return found;
  };

  Reference reference;
  reference.root = locate(op.getX());
  reference.xType = op.getX().getType();
  reference.fusedAttributes = op->getAttrDictionary();
  // The output: what the fused op's first user read in the original.
  OpOperand &use = *op.getY().getUses().begin();
  Operation *user = use.getOwner();
  original.walk([&](Operation *candidate) {
    if (!reference.output && candidate->getName() == user->getName() &&
        candidate->getLoc() == user->getLoc())
      reference.output = candidate->getOperand(use.getOperandNumber());
  });
  if (!reference.root || !reference.output)
    return std::nullopt;
  while (Operation *def = reference.root.getDefiningOp()) {
    if (!isReshape(def))
      break;
    reference.root = def->getOperand(0);
  }

  // Shape queries (tensor.dim) read no data: they do not carry x forward.
  ForwardSliceOptions forwardOptions;
  forwardOptions.filter = [](Operation *op) { return !isa<tensor::DimOp>(op); };
  SetVector<Operation *> forward, backward, epilogue;
  getForwardSlice(reference.root, &forward, forwardOptions);
  BackwardSliceOptions backwardOptions;
  backwardOptions.omitBlockArguments = true;
  Operation *outputOp = reference.output.getDefiningOp();
  (void)getBackwardSlice(outputOp, &backward, backwardOptions);
  backward.insert(outputOp);
  Operation *down = nullptr;
  for (Operation *op : forward)
    if (isContraction(op) && backward.contains(op) &&
        (!down || down->isBeforeInBlock(op)))
      down = op;
  if (!down)
    return std::nullopt;
  getForwardSlice(down, &epilogue);
  epilogue.insert(down);
  SmallVector<Operation *> epilogueInOrder(epilogue.begin(), epilogue.end());
  llvm::sort(epilogueInOrder,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : epilogueInOrder)
    if (backward.contains(op) && op->getNumResults() == 1)
      reference.epilogue.push_back(op->getResult(0));
  for (Operation *op : forward) {
    if (!backward.contains(op) || epilogue.contains(op) ||
        (isReshape(op) && op->getOperand(0) == reference.root))
      continue;
    for (Value result : op->getResults())
      reference.interior.insert(result);
  }
  return reference;
}

TEST_F(RecognizeRobustness, MutantsFuseExactlyWhenTheyShould) {
  std::vector<Mutation> mutations = makeMutations();
  std::map<std::string, unsigned> tried;
  unsigned cases = 0, failures = 0, wrong = 0, fusedDifferently = 0;

  std::vector<std::pair<std::string, std::string>> corpus =
      readChunks((kSourceDir + "/examples").str());
  for (StringRef directory : {"/test/Passes", "/test/Frontends"})
    for (auto &chunk : readChunks((kSourceDir + directory).str()))
      corpus.push_back(chunk);

  for (auto &[name, source] : corpus) {
    OwningOpRef<ModuleOp> original = parseQuietly(source);
    if (!original)
      continue;
    OwningOpRef<ModuleOp> recognized = original->clone();
    std::string diagnostics;
    if (failed(recognize(*recognized, diagnostics)))
      continue; // reported by EveryTestCaseStaysValid
    std::optional<Reference> reference = findReference(*original, *recognized);
    if (!reference)
      continue; // not a single-block positive case
    ++cases;

    for (const Mutation &mutation : mutations) {
      size_t siteCount = mutation.sites(*original, *reference).size();
      for (size_t site = 0; site < siteCount; ++site) {
        // Mutate a clone; the reference's values are mapped into it.
        IRMapping mapping;
        OwningOpRef<ModuleOp> mutant(
            cast<ModuleOp>(original->getOperation()->clone(mapping)));
        Reference mapped = *reference;
        mapped.root = mapping.lookupOrDefault(reference->root);
        mapped.output = mapping.lookupOrDefault(reference->output);
        mapped.interior.clear();
        mapped.epilogue.clear();
        for (Value value : reference->epilogue)
          mapped.epilogue.push_back(mapping.lookupOrDefault(value));
        for (Value value : reference->interior)
          mapped.interior.insert(mapping.lookupOrDefault(value));
        Operation *target = mutation.sites(*mutant, mapped)[site];
        OpBuilder builder(&context);
        Expect expect = mutation.apply(target, mapped, builder);
        ++tried[mutation.name];

        std::string printed;
        llvm::raw_string_ostream os(printed);
        mutant->print(os);
        if (failed(verify(*mutant)))
          continue; // the mutation itself made invalid IR: not a case
        std::string mutantDiagnostics;
        if (failed(recognize(*mutant, mutantDiagnostics))) {
          ++failures;
          ADD_FAILURE() << name << ", " << mutation.name << " #" << site
                        << ": the pass failed or left invalid IR\n"
                        << mutantDiagnostics << printed;
          continue;
        }
        GatedMlpOp fused;
        mutant->walk([&](GatedMlpOp op) { fused = op; });
        bool right = false;
        switch (expect) {
        case Expect::Fused:
          right = static_cast<bool>(fused);
          break;
        case Expect::NotFused:
          right = !fused;
          break;
        case Expect::NotTheSameBlock:
          right = !fused ||
                  fused->getAttrDictionary() != reference->fusedAttributes;
          if (fused && right)
            ++fusedDifferently;
          break;
        }
        if (!right) {
          ++wrong;
          ADD_FAILURE() << name << ", " << mutation.name << " #" << site
                        << " at " << target->getName().getStringRef().str()
                        << ": " << (fused ? "fused" : "not fused")
                        << ", expected otherwise\n"
                        << printed;
        }
      }
    }
  }

  unsigned total = 0;
  std::cout << "mutation test over " << cases << " single-block cases:\n";
  for (auto &[mutation, count] : tried) {
    std::cout << "  " << mutation << ": " << count << " variants\n";
    total += count;
  }
  std::cout << "  " << total << " variants, " << failures
            << " pass failures or invalid results, " << wrong
            << " wrong fusion decisions (" << fusedDifferently
            << " scaled constants still formed a block, each with other "
               "attributes than the original)\n";
  EXPECT_GT(cases, 10u);
  EXPECT_GT(total, 200u);
}

} // namespace
