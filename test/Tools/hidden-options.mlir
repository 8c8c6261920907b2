// The codegen's hidden A/B knobs refuse meaningless values when the command
// line is read, naming the option, in every tool that links the codegen
// (not a fatal error mid-pass; --fmlp-small-tokens-pieces=-1 once unrolled
// without end and ran out of memory).
// RUN: not fmlp-opt %s --fmlp-small-tokens-pieces=-1 2>&1 | FileCheck %s --check-prefix=PIECES
// RUN: not fmlp-opt %s --fmlp-small-tokens-pieces=1000000 2>&1 | FileCheck %s --check-prefix=PIECESBIG
// RUN: not fmlp-compile %s --fmlp-small-tokens-max=24 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not fmlp-compile %s --fmlp-small-tokens-max-registers=-5 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not fmlp-opt %s --fmlp-wgmma-tile-n=96 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not fmlp-opt %s --fmlp-wgmma-tile-n=-64 2>&1 | FileCheck %s --check-prefix=WIDTHNEG
// RUN: not fmlp-opt %s --fmlp-mma-sync-stages=1 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not fmlp-opt %s --fmlp-mma-sync-tile-k-bytes=32 2>&1 | FileCheck %s --check-prefix=TILEK
// RUN: not fmlp-opt %s --fmlp-wgmma-token-rows-per-box=24 2>&1 | FileCheck %s --check-prefix=BOX
// RUN: not fmlp-opt %s --fmlp-mma-sync-copy-steps=0 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not fmlp-opt %s --fmlp-wgmma-tile-n=abc 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not fmlp-compile %s --fmlp-ptx-version=90 2>&1 | FileCheck %s --check-prefix=PTX
// Accepted values pass (the input is an empty module).
// RUN: fmlp-opt %s --fmlp-small-tokens-pieces=8 --fmlp-small-tokens-max=32 --fmlp-wgmma-tile-n=192 --fmlp-mma-sync-stages=2 --fmlp-mma-sync-tile-k-bytes=64 --fmlp-wgmma-token-rows-per-box=128 --fmlp-small-tokens-max-registers=255 --fmlp-mma-sync-copy-steps=8 --fmlp-ptx-version=87 | FileCheck %s --check-prefix=OK

// PIECES: for the --fmlp-small-tokens-pieces option: must be 1 to 8, not '-1'
// PIECES-NOT: LLVM ERROR
// PIECESBIG: for the --fmlp-small-tokens-pieces option: must be 1 to 8, not '1000000'
// SMALL: for the --fmlp-small-tokens-max option: must be 16, 32 or 64, not '24'
// REGS: for the --fmlp-small-tokens-max-registers option: must be 64 to 255, not '-5'
// WIDTH: for the --fmlp-wgmma-tile-n option: must be 0, 64, 128, 192 or 256, not '96'
// WIDTHNEG: for the --fmlp-wgmma-tile-n option: must be 0, 64, 128, 192 or 256, not '-64'
// STAGES: for the --fmlp-mma-sync-stages option: must be 0 or 2 to 6, not '1'
// TILEK: for the --fmlp-mma-sync-tile-k-bytes option: must be 0, 64 or 128, not '32'
// BOX: for the --fmlp-wgmma-token-rows-per-box option: must be 8, 16, 32, 64 or 128, not '24'
// COPY: for the --fmlp-mma-sync-copy-steps option: must be 1 to 8, not '0'
// NOTINT: for the --fmlp-wgmma-tile-n option: 'abc' value invalid for integer argument
// PTX: for the --fmlp-ptx-version option: must be 0 or 80 to 88, not '90'
// OK: module
module {
}
