// RUN: fmlp-opt %s --fmlp-attach-target | FileCheck %s
// RUN: fmlp-opt %s --fmlp-attach-target=chip=sm_120a | FileCheck %s --check-prefix=SM120A
// RUN: not fmlp-opt %s --fmlp-attach-target=chip=sm_garbage 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fmlp-opt %s --fmlp-gpu-pipeline=chip=sm_75 2>&1 | FileCheck %s --check-prefix=OLD

// The chip is looked up once and recorded on the module; later passes read
// the table's row from there.
// CHECK: module attributes {fmlp.target = #fmlp.target<"sm_90a">}
// SM120A: module attributes {fmlp.target = #fmlp.target<"sm_120a">}
// An unknown chip is an error that names the known ones.
// UNKNOWN: error: unknown chip 'sm_garbage': fmlp knows sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a
// OLD: error: fmlp-gpu-pipeline: unknown chip 'sm_75': fmlp knows sm_80,
module {
}
