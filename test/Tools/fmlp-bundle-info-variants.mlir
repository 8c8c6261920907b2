// A bundle with two variants of a kernel (ranges of T, since format version 2): fmlp-bundle-info
// lists each kernel with the range of T it serves and whether a launch at
// --tokens runs it, as the runtime reads the manifest.
// RUN: rm -rf %t && split-file %s %t && touch %t/v.bundle/kernels.ptx
// RUN: fmlp-bundle-info %t/v.bundle --tokens=16 | FileCheck %s --check-prefix=AT16
// RUN: fmlp-bundle-info %t/v.bundle --tokens=17 | FileCheck %s --check-prefix=AT17
// An entry point compiled for one T (static rows) is described at that T,
// whatever --tokens says.
// RUN: touch %t/s.bundle/kernels.ptx
// RUN: fmlp-bundle-info %t/s.bundle --tokens=4 | FileCheck %s --check-prefix=STATIC
// A version-2 manifest is refused, naming both versions.
// RUN: sed -e 's/"version": 3/"version": 2/' %t/v.bundle/manifest.json > %t/old.json
// RUN: mkdir -p %t/old.bundle && cp %t/old.json %t/old.bundle/manifest.json && touch %t/old.bundle/kernels.ptx
// RUN: not fmlp-bundle-info %t/old.bundle 2>&1 | FileCheck %s --check-prefix=OLD

// AT16: entry v.forward_nograd (forward_nograd)
// AT16: kernel k_small: T in [1, 16], runs at T = 16
// AT16-NEXT: kernel k_large: T in [17, inf], not run at T = 16
// AT16-NEXT: kernel k_after: T in [1, inf], runs at T = 16

// AT17: kernel k_small: T in [1, 16], not run at T = 17
// AT17-NEXT: kernel k_large: T in [17, inf], runs at T = 17
// AT17-NEXT: kernel k_after: T in [1, inf], runs at T = 17

// STATIC: entry s.forward_nograd (forward_nograd): 384 B saved + workspace at T = 24 (compiled for this T only)
// STATIC: x          input     bf16 [24, 8]
// STATIC: kernel k_small: T in [1, 16], not run at T = 24
// STATIC-NEXT: kernel k_large: T in [17, inf], runs at T = 24

// OLD: fmlp-bundle-info: FMLP_ERROR_VERSION: {{.*}}manifest.json: bundle format version 2 is not supported: this runtime reads version 3

//--- v.bundle/manifest.json
{
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "v.forward_nograd", "kind": "forward_nograd", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_small", "grid_tokens_per_block": [1, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 1, "max_tokens": 16,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_large", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [132, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 17,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_after", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [4, 1, 1],
        "block": [64, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]}]}]
}

//--- s.bundle/manifest.json
{
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "s.forward_nograd", "kind": "forward_nograd", "static_tokens": 24,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [24, 8], "alignment": 16, "consumed": false},
       {"name": "w", "role": "workspace", "dtype": "bf16", "shape": [24, 8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_small", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [16, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 1, "max_tokens": 16,
        "params": [{"argument": 0, "offset": 0}, {"argument": 1, "offset": 0}]},
       {"kernel": "k_large", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [132, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 17,
        "params": [{"argument": 0, "offset": 0}, {"argument": 1, "offset": 0}]}]}]
}
