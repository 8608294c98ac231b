/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_token.h"

#include <errno.h>

#include "dl_platform.h"

dl_status_t dl_random_bytes(void *buf, size_t len, dl_error_t *err)
{
    unsigned char *p = buf;
    while (len > 0) {
        long n = dl_platform_random(p, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return dl_error_set(err, DL_ERR_RANDOM, "the kernel refused random bytes (errno %d)", errno);
        }
        p += n;
        len -= (size_t)n;
    }
    return DL_OK;
}

dl_status_t dl_token_generate(char out[DL_TOKEN_HEX_LEN + 1], dl_error_t *err)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[DL_TOKEN_BYTES];
    size_t i;
    dl_status_t st = dl_random_bytes(raw, sizeof(raw), err);
    if (st != DL_OK) {
        return st;
    }
    for (i = 0; i < DL_TOKEN_BYTES; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 0x0f];
    }
    out[DL_TOKEN_HEX_LEN] = '\0';
    return DL_OK;
}

int64_t dl_random_upto(int64_t bound)
{
    uint64_t r;
    if (bound <= 0 || dl_random_bytes(&r, sizeof(r), NULL) != DL_OK) {
        return 0;
    }
    /* The modulo bias is below 2^-40 for the bounds used here (< 2^24 µs). */
    return (int64_t)(r % ((uint64_t)bound + 1));
}
