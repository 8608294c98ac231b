/*
 * dl_token — owner tokens and random numbers from the kernel CSPRNG.
 *
 * Tokens are 16 bytes (128 bits) from the kernel's CSPRNG (getrandom,
 * getentropy or arc4random_buf: dl_platform), written as 32 lowercase
 * hex characters. Guessable tokens (uniqid, time, pid) let another client
 * release or steal a lock (DESIGN.md, "Why it exists").
 */
#ifndef DL_TOKEN_H
#define DL_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include "dl_err.h"

#define DL_TOKEN_BYTES 16
#define DL_TOKEN_HEX_LEN (DL_TOKEN_BYTES * 2)

/* Fills buf with len bytes from the CSPRNG (dl_platform_random), retrying on EINTR and short
 * reads. Returns DL_OK, or DL_ERR_RANDOM when the kernel refuses. */
dl_status_t dl_random_bytes(void *buf, size_t len, dl_error_t *err);

/* Writes a fresh token: DL_TOKEN_HEX_LEN hex characters plus a NUL into out.
 * Returns DL_OK or DL_ERR_RANDOM. */
dl_status_t dl_token_generate(char out[DL_TOKEN_HEX_LEN + 1], dl_error_t *err);

/* A uniformly distributed integer in [0, bound] (bound >= 0), used for
 * backoff jitter. Falls back to 0 if the kernel refuses randomness. */
int64_t dl_random_upto(int64_t bound);

#endif
