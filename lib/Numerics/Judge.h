/*===- Judge.h - The error-bound judge as a C API ----------------*- C -*-===*\
|*                                                                            *|
|* lib/Numerics/Reference.h behind a C interface, for callers that are not   *|
|* C++ (fmlp's Python tests load it with ctypes): given a block's inputs,    *|
|* every output's float64 reference value and elementwise error bound. An    *|
|* implementation's output passes when it is finite and every element's      *|
|* |computed - exact| / bound is <= 1. Bounds of outputs summed from shards  *|
|* (tensor parallelism) are sums of the shards' bounds, so they are          *|
|* returned, not only a verdict.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FMLP_LIB_NUMERICS_JUDGE_H
#define FMLP_LIB_NUMERICS_JUDGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FMLP_JUDGE_SILU = 0,
  FMLP_JUDGE_GELU_TANH = 1,
  FMLP_JUDGE_RELU = 2
} fmlp_judge_activation;

typedef enum {
  FMLP_JUDGE_F32 = 0,
  FMLP_JUDGE_BF16 = 1,
  FMLP_JUDGE_F16 = 2
} fmlp_judge_storage;

/* How an fp32 block's contractions multiply (docs/precision.md). */
typedef enum {
  FMLP_JUDGE_IEEE = 0,
  FMLP_JUDGE_TF32 = 1,
  FMLP_JUDGE_TF32X3 = 2
} fmlp_judge_contraction;

typedef struct {
  int64_t tokens, model, hidden; /* T, D, H */
  int32_t activation;            /* fmlp_judge_activation */
  int32_t storage;               /* fmlp_judge_storage */
  int32_t bias;                  /* gate, up and down biases present */
  double gate_multiplier, down_multiplier;
  int32_t contraction; /* fmlp_judge_contraction; IEEE unless storage F32 */
} fmlp_judge_block;

/* Inputs, and the outputs judged, in this order. Every matrix is dense,
 * row-major float64 in the math's layout: x, dy, y, dx [T, D]; gate, up and
 * their gradients [D, H] (y = act(x gate) * (x up) down); down and its
 * gradient [H, D]; biases and their gradients [H], [H], [D] (NULL when the
 * block has none). Inputs must be representable in the storage type. */
enum { FMLP_JUDGE_X, FMLP_JUDGE_GATE, FMLP_JUDGE_UP, FMLP_JUDGE_DOWN,
       FMLP_JUDGE_DY, FMLP_JUDGE_GATE_BIAS, FMLP_JUDGE_UP_BIAS,
       FMLP_JUDGE_DOWN_BIAS, FMLP_JUDGE_INPUTS };
enum { FMLP_JUDGE_Y, FMLP_JUDGE_DX, FMLP_JUDGE_D_GATE, FMLP_JUDGE_D_UP,
       FMLP_JUDGE_D_DOWN, FMLP_JUDGE_D_GATE_BIAS, FMLP_JUDGE_D_UP_BIAS,
       FMLP_JUDGE_D_DOWN_BIAS, FMLP_JUDGE_OUTPUTS };

/* Row-major c = op(a) op(b) in float64, op = transpose where asked; a is
 * a_rows x a_cols as stored. The judge's contractions all go through it
 * (a caller may run them on a GPU); NULL: plain loops on the host. */
typedef void (*fmlp_judge_matmul)(void *context, const double *a,
                                  int64_t a_rows, int64_t a_cols,
                                  int32_t transpose_a, const double *b,
                                  int64_t b_rows, int64_t b_cols,
                                  int32_t transpose_b, double *c);

/* Writes, for each output i, the float64 reference's values into exact[i]
 * and the error bound of each element into bound[i] (buffers of the
 * output's size, in the layout above; ignored for absent biases). The
 * weight and bias gradients' bounds are those of one token chunk (their
 * sums over T stored once). Returns 0, or -1 with a message in `error` (a
 * buffer of error_size bytes) when the block or a pointer is invalid. */
int fmlp_judge_reference(const fmlp_judge_block *block,
                         const double *const inputs[FMLP_JUDGE_INPUTS],
                         fmlp_judge_matmul matmul, void *context,
                         double *const exact[FMLP_JUDGE_OUTPUTS],
                         double *const bound[FMLP_JUDGE_OUTPUTS], char *error,
                         int64_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* FMLP_LIB_NUMERICS_JUDGE_H */
