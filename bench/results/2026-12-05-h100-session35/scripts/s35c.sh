#!/usr/bin/env bash
# Session 35, calls 3 and 3b (issue 23): s35.sh on .device/x3ra (make-x3.sh
# with X3_OUT=.device/x3ra X3_FLAGS=--fmlp-tf32x3-register-a: A split in
# registers by the consumers, B alone by the producer), its raw launches
# compared with .device/x3/x3 (A split by the producer) in 5 rounds.
X3_SET=.device/x3ra/x3 X3_CACHE=.device/x3ra/cache-x3 X3_BASELINE=.device/x3/x3 X3_ROUNDS=5 \
  exec bash "$(dirname "$0")/s35.sh"
