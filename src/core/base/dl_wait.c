#include "dl_wait.h"

int64_t dl_backoff_delay_us(const dl_backoff_t *b, unsigned attempt)
{
    int64_t d = b->base_us;
    if (d <= 0) {
        return 0;
    }
    while (attempt-- > 0 && d < b->cap_us) {
        d = d > b->cap_us / 2 ? b->cap_us : d * 2;  /* no overflow for any cap */
    }
    return d < b->cap_us ? d : b->cap_us;
}

int64_t dl_wait_sleep_us(int64_t delay_us, int64_t jitter_us_drawn,
                         int64_t remaining_us, int64_t holder_pttl_ms)
{
    int64_t s = delay_us + jitter_us_drawn;
    if (remaining_us <= 0) {
        return 0;
    }
    /* Another client may set any PX (up to ~2^63 ms): compare without overflowing. */
    if (holder_pttl_ms > 0 && holder_pttl_ms < INT64_MAX / 1000 && s > holder_pttl_ms * 1000) {
        s = holder_pttl_ms * 1000;
    }
    if (s < DL_WAIT_MIN_SLEEP_US) {
        s = DL_WAIT_MIN_SLEEP_US;
    }
    return s < remaining_us ? s : remaining_us;
}
