/*===- Runtime.h - fmlp's runtime: load a bundle, launch its entry points -===*\
|*                                                                            *|
|* A C API over the CUDA driver API, which it loads with dlopen (it builds,   *|
|* and reports a clear error, on machines without a GPU). A bundle            *|
|* (fmlp-compile -o x.bundle) holds the kernels of one or more gated MLP      *|
|* blocks and their entry points: forward, backward, forward_nograd.          *|
|*                                                                            *|
|*   fmlp_bundle *bundle;                                                     *|
|*   fmlp_bundle_open("mlp.bundle", &bundle);    parse, no driver needed      *|
|*   fmlp_bundle_load(bundle);                   into the current context     *|
|*   int forward; fmlp_entry_find(bundle, "forward", &forward);              *|
|*   fmlp_launch(bundle, forward, tensors, count, stream);                    *|
|*                                                                            *|
|* Launches allocate no device memory and never synchronize, so they can be  *|
|* captured in a CUDA graph; every buffer, the saved activations and the      *|
|* workspace included, is the caller's (a backward's first call on a stream  *|
|* makes a side stream and two events: fmlp_bundle_serial_launches). Before   *|
|* launching, fmlp_launch checks every tensor against the entry point (count, *|
|* null pointers, dtype, shape, dense row-major strides, alignment) and that  *|
|* the saved activations a backward consumes were written by a forward and    *|
|* not consumed since (a backward writes dG, dU over G, U;                    *|
|* fmlp_bundle_check_saved turns this off for callers that track it           *|
|* themselves). fmlp_bundle_open refuses a                                    *|
|* manifest with any number outside its field's range or a view outside its   *|
|* argument (docs/Bundle.md), and every size computed from T is checked for   *|
|* overflow, so an accepted launch touches only the caller's buffers. Every   *|
|* function returns a status; fmlp_last_error() says what was wrong, naming   *|
|* the entry point, argument, kernel, CUDA call and shapes involved. Thread   *|
|* safety: one bundle may be used from several threads; fmlp_last_error is    *|
|* per thread.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FMLP_RUNTIME_H
#define FMLP_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bundle format this runtime reads (manifest.json's "version"): 3 since
 * entry points may run launches once per token chunk (chunk_tokens,
 * per_chunk, token_stride), which a version-2 reader would ignore,
 * launching each once over all T with a workspace sized for one chunk; 2
 * added the range of T a launch serves (min_tokens, max_tokens). */
#define FMLP_BUNDLE_VERSION 3

#if defined(__GNUC__)
#define FMLP_API __attribute__((visibility("default")))
#else
#define FMLP_API
#endif
#define FMLP_MAX_RANK 8

typedef enum fmlp_status {
  FMLP_OK = 0,
  FMLP_ERROR_INVALID_ARGUMENT = 1, /* a null handle, an index out of range */
  FMLP_ERROR_BUNDLE = 2,           /* unreadable or malformed bundle */
  FMLP_ERROR_VERSION = 3,          /* a bundle format this runtime lacks */
  FMLP_ERROR_NO_DRIVER = 4,        /* libcuda.so.1 missing or incomplete */
  FMLP_ERROR_CUDA = 5,             /* a CUDA driver call failed */
  FMLP_ERROR_CHIP = 6,             /* the device cannot run the bundle */
  FMLP_ERROR_NOT_FOUND = 7,        /* no such entry point */
  FMLP_ERROR_NOT_LOADED = 8,       /* fmlp_launch before fmlp_bundle_load */
  FMLP_ERROR_COUNT = 9,            /* wrong number of tensors */
  FMLP_ERROR_NULL_POINTER = 10,
  FMLP_ERROR_DTYPE = 11,
  FMLP_ERROR_SHAPE = 12,
  FMLP_ERROR_LAYOUT = 13, /* strides not dense row-major */
  FMLP_ERROR_ALIGNMENT = 14,
  FMLP_ERROR_SAVED_CONSUMED = 15 /* backward over consumed activations */
} fmlp_status;

typedef enum fmlp_dtype {
  FMLP_F32 = 0,
  FMLP_BF16 = 1,
  FMLP_F16 = 2
} fmlp_dtype;

typedef enum fmlp_role {
  FMLP_ROLE_INPUT = 0,
  FMLP_ROLE_OUTPUT = 1,
  FMLP_ROLE_SAVED = 2,    /* written by forward, read by backward */
  FMLP_ROLE_WORKSPACE = 3 /* scratch of one call */
} fmlp_role;

/* A tensor on the device. Sizes and strides in elements; a token-shaped
 * argument ([T, n]) may have any number of leading dimensions, whose
 * product is T. */
typedef struct fmlp_tensor {
  void *data;
  fmlp_dtype dtype;
  int32_t rank;
  int64_t sizes[FMLP_MAX_RANK];
  int64_t strides[FMLP_MAX_RANK];
} fmlp_tensor;

/* An entry point's argument as the bundle declares it: shape[0] == -1
 * stands for T. */
typedef struct fmlp_argument_info {
  const char *name;
  fmlp_role role;
  fmlp_dtype dtype;
  int32_t rank;
  int64_t shape[2];
  int32_t alignment; /* bytes */
  int32_t consumed;  /* saved activations a backward writes over */
} fmlp_argument_info;

typedef struct fmlp_bundle fmlp_bundle;

FMLP_API const char *fmlp_status_name(fmlp_status status);
/* "f32", "bf16", "f16"; "input", "output", "saved", "workspace". */
FMLP_API const char *fmlp_dtype_name(fmlp_dtype dtype);
FMLP_API const char *fmlp_role_name(fmlp_role role);
/* What went wrong in this thread's last failing call ("" if none). */
FMLP_API const char *fmlp_last_error(void);

FMLP_API fmlp_status fmlp_bundle_open(const char *directory,
                                      fmlp_bundle **bundle);
/* Loads the kernels into the calling thread's current CUDA context (the
 * cubin when it matches the device, else the PTX); checks the chip. */
FMLP_API fmlp_status fmlp_bundle_load(fmlp_bundle *bundle);
FMLP_API void fmlp_bundle_close(fmlp_bundle *bundle);
FMLP_API const char *fmlp_bundle_chip(const fmlp_bundle *bundle);
/* The compiler that wrote the bundle, as its manifest names it ("fmlp
 * 0.2.0"); "" for a bundle written before fmlp 0.2.0, which did not. */
FMLP_API const char *fmlp_bundle_compiler(const fmlp_bundle *bundle);
/* Whether fmlp_launch refuses a backward over saved activations that no
 * forward of this bundle wrote, or that an earlier backward consumed (on
 * by default). The check goes by address. A caller that tracks the saved
 * activations itself turns it off: PyTorch's autograd does (version
 * counters), and torch.compile may hand a backward a copy of them. Either
 * call forgets the activations seen so far. */
FMLP_API void fmlp_bundle_check_saved(fmlp_bundle *bundle, int enabled);
/* Whether fmlp_launch runs every kernel on the caller's stream, each
 * after the one before has ended (off by default, or on where
 * FMLP_SERIAL_LAUNCHES was set to other than 0 when the bundle was
 * opened). Off, two kinds of overlap are allowed, both derived from the
 * manifest. The launches it puts on lane 1 (a backward's dX GEMM, beside
 * the weight gradients') go to a side stream of the caller's stream, made
 * by the first such call and ordered by events against every launch they
 * conflict with (runtime/Lanes.h); the call returns with the caller's
 * stream waiting for the side stream, so the caller sees one stream, and a
 * CUDA graph captures the fork and the join. A call whose written tensors
 * overlap another tensor (dX over dY, say) runs on the caller's stream
 * alone: the order is derived per argument. A side stream and its two
 * events stay with the bundle until fmlp_bundle_close, one per caller's
 * stream (per thread for the per-thread default stream). And the launches
 * it marks programmatic_launch (kernels that wait for the ones before them
 * themselves: the no-grad forward's, sm_90 onwards, or every entry's where
 * the compiler ran with --fmlp-programmatic-launch) go through
 * cuLaunchKernelEx with programmatic stream serialization, so that their
 * blocks start as the previous kernel's retire. Results are the same bits
 * either way. On for A/B measurements, for callers that want one stream,
 * and to rule overlap out when looking for a race. (Such kernels also let
 * the next kernel launch early, griddepcontrol.launch_dependents first
 * thing: a caller's kernel launched programmatically after fmlp_launch may
 * run the part before its own griddepcontrol.wait beside fmlp's last
 * kernel, which, as the CUDA programming guide asks of any such kernel,
 * must not touch fmlp's tensors.) */
FMLP_API void fmlp_bundle_serial_launches(fmlp_bundle *bundle, int enabled);

FMLP_API int fmlp_entry_count(const fmlp_bundle *bundle);
/* By kind ("forward", "backward", "forward_nograd") when one entry point
 * has it, or by symbol ("mlp.forward"). */
FMLP_API fmlp_status fmlp_entry_find(const fmlp_bundle *bundle,
                                     const char *name, int *entry);
FMLP_API const char *fmlp_entry_kind(const fmlp_bundle *bundle, int entry);
FMLP_API const char *fmlp_entry_symbol(const fmlp_bundle *bundle, int entry);
FMLP_API int fmlp_argument_count(const fmlp_bundle *bundle, int entry);
FMLP_API fmlp_status fmlp_argument_info_get(const fmlp_bundle *bundle,
                                            int entry, int argument,
                                            fmlp_argument_info *info);
/* The fewest T at which a kernel of the entry point reads or writes the
 * argument: the least min_tokens (fmlp_kernel_tokens) of the launches that
 * refer to it; INT64_MAX when none does. A workspace may be passed null
 * (data == NULL, its other fields not read) at fewer T, where nothing uses
 * it: tf32's weight copies, which only the kernels of larger T read
 * (docs/Bundle.md). FMLP_ERROR_INVALID_ARGUMENT for a null bundle or
 * pointer, or no such entry point or argument. */
FMLP_API fmlp_status fmlp_argument_min_tokens(const fmlp_bundle *bundle,
                                              int entry, int argument,
                                              int64_t *min_tokens);
/* Bytes of the buffers an entry point takes for T tokens beyond its inputs
 * and outputs: all its saved and workspace arguments (a caller that passes
 * every one allocates this). FMLP_ERROR_SHAPE for a negative T, or one at
 * which that byte count overflows int64. */
FMLP_API fmlp_status fmlp_workspace_bytes(const fmlp_bundle *bundle, int entry,
                                          int64_t tokens, int64_t *bytes);
/* The same for the buffers the entry point uses at T: its saved arguments
 * and the workspaces whose fmlp_argument_min_tokens is at most T (a caller
 * that passes the others null allocates this). */
FMLP_API fmlp_status fmlp_workspace_bytes_used(const fmlp_bundle *bundle,
                                               int entry, int64_t tokens,
                                               int64_t *bytes);

/* Launches `entry` on `stream` (a CUstream; NULL: the default stream) with
 * one tensor per argument, in the bundle's order, in the context the bundle
 * was loaded into: made current on a thread that has none (as the CUDA
 * runtime does with its primary context); another current context is
 * refused. At T = 0 (an empty batch, an expert no token was routed to) the
 * outputs without token rows, sums over the tokens (weight and bias
 * gradients), are zeroed and nothing else runs; token arguments may then be
 * null.
 *
 * Outputs not wanted: an output passed with data == NULL is not wanted
 * (its other fields are not read); inputs, saved activations and the
 * workspace must not be null (FMLP_ERROR_NULL_POINTER, naming the
 * argument), except a workspace at a T below its fmlp_argument_min_tokens,
 * which nothing uses. A kernel that writes only not-wanted outputs is
 * skipped (a backward for frozen weights runs neither [dWg dWu] = X^T
 * [dG dU] nor dWd = A^T dY, nor their bias sums; for an input that needs
 * no gradient, not dX). A kernel that runs and writes or reads a
 * not-wanted output (one GEMM writes dWg and dWu together, so
 * wanting one needs a buffer for the other) is refused before anything is
 * launched, with FMLP_ERROR_NULL_POINTER naming the argument and the
 * kernel: nothing is ever read or written through a null pointer.
 * fmlp_outputs_needed says which outputs to pass for a choice of wanted
 * ones. What each kernel writes is the manifest's (docs/Bundle.md,
 * "writes"); what it may read is every argument among its parameters.
 * Deciding allocates nothing and never synchronizes: a launch with null
 * outputs can be captured in a CUDA graph like any other.
 *
 * An entry point compiled with chunk-tokens = C (fmlp_entry_chunk_tokens)
 * runs its per-chunk kernels (fmlp_kernel_per_chunk) once per chunk of C
 * tokens, the last one T - C floor((T - 1) / C) tokens, each on the chunk's
 * rows of the token tensors and on the same workspace (sized for one
 * chunk: the kernels of a chunk finish on the stream before the next
 * chunk's start); its weight and bias gradients are zeroed first and
 * summed over the chunks, stored in their dtype after each (one rounding
 * per chunk, which lib/Numerics's bounds account for). Still no
 * allocation and no synchronization: the chunk loop is host launches,
 * capturable in a CUDA graph for a fixed T. */
FMLP_API fmlp_status fmlp_launch(fmlp_bundle *bundle, int entry,
                                 const fmlp_tensor *tensors, int count,
                                 void *stream);

/* The outputs to pass (non-null) to launch `entry` when the caller wants
 * only some: wanted[i], one per argument (read for outputs only), says
 * whether the caller wants output i; needed[i] becomes 1 for the wanted
 * outputs and for every output that a kernel which runs anyway writes or
 * reads, 0 for the others and for every argument that is not an output.
 * With exactly the needed outputs non-null, fmlp_launch refuses no kernel
 * at any T, and skips those that write only the others. Needs no driver. */
FMLP_API fmlp_status fmlp_outputs_needed(const fmlp_bundle *bundle, int entry,
                                         const int32_t *wanted,
                                         int32_t *needed);

/* The chip fmlp-compile --chip takes for a device of compute capability
 * major.minor, from fmlp's chip table (include/fmlp/Target.h): the
 * architecture-specific form where it adds an MMA family ("sm_90a" for
 * 9.0, "sm_100a" for 10.0), else the plain one ("sm_86", "sm_120"); a
 * minor revision the table lacks takes the plain chip of its major below it
 * ("sm_86" for 8.7, "sm_120" for 12.1); NULL for a major the table lacks
 * (7.5 and older). Needs no CUDA and no bundle. */
FMLP_API const char *fmlp_chip_for_capability(int major, int minor);

/* For profiling: the kernels of an entry point, in launch order, and one
 * of them launched alone (tensors checked as by fmlp_launch, not-wanted
 * outputs included: a kernel that writes only those launches nothing, one
 * that writes or reads them beside something needed is refused; the saved
 * activations are neither checked nor marked, an entry point run in part
 * leaves its outputs meaningless, and T = 0 launches nothing). Each kernel
 * serves a range of T, min_tokens <= T <= max_tokens (fmlp_kernel_tokens);
 * fmlp_launch runs, in order, exactly the kernels whose range holds T
 * (variants of one kernel for small and large T have disjoint ranges), and
 * fmlp_launch_kernel refuses, with FMLP_ERROR_INVALID_ARGUMENT, a kernel
 * whose range does not hold the T of its tensors. For a per-chunk kernel
 * the range is of a chunk's T: fmlp_launch_kernel launches it for every
 * chunk it serves, and refuses it when it serves none. */
FMLP_API int fmlp_kernel_count(const fmlp_bundle *bundle, int entry);
FMLP_API const char *fmlp_kernel_name(const fmlp_bundle *bundle, int entry,
                                      int kernel);
/* The range of T a kernel serves: *max_tokens is INT64_MAX when it has no
 * upper bound. FMLP_ERROR_INVALID_ARGUMENT for a null bundle or pointer,
 * or no such entry point or kernel. */
FMLP_API fmlp_status fmlp_kernel_tokens(const fmlp_bundle *bundle, int entry,
                                        int kernel, int64_t *min_tokens,
                                        int64_t *max_tokens);
FMLP_API fmlp_status fmlp_launch_kernel(fmlp_bundle *bundle, int entry,
                                        int kernel, const fmlp_tensor *tensors,
                                        int count, void *stream);
/* The tokens per chunk C of an entry point compiled with chunk-tokens = C;
 * 0 when it is not chunked (or for a null bundle or no such entry). */
FMLP_API int64_t fmlp_entry_chunk_tokens(const fmlp_bundle *bundle, int entry);
/* The T an entry point was compiled for when its arguments' rows are
 * static (every size then fixed); 0 when T is dynamic (or for a null bundle
 * or no such entry). */
FMLP_API int64_t fmlp_entry_static_tokens(const fmlp_bundle *bundle,
                                          int entry);
/* 1 when the kernel runs once per chunk, 0 when once per launch (or for a
 * null bundle or no such entry point or kernel). */
FMLP_API int fmlp_kernel_per_chunk(const fmlp_bundle *bundle, int entry,
                                   int kernel);

#ifdef __cplusplus
}
#endif

#endif /* FMLP_RUNTIME_H */
