#include "dl_key.h"

#include <string.h>

int dl_key_has_tag(const char *key, size_t key_len)
{
    const char *open = memchr(key, '{', key_len), *close;
    if (!open) return 0;
    close = memchr(open + 1, '}', key_len - (size_t)(open + 1 - key));
    return close != NULL && close > open + 1;
}

size_t dl_key_derive(const char *key, size_t key_len, const char *suffix, size_t suffix_len, char *out)
{
    size_t n = key_len;
    memcpy(out, key, key_len);
    if (!dl_key_has_tag(key, key_len) && !memchr(key, '}', key_len)) {
        /* Our '{' is the first one only if the key has none: else its '{' opens
         * the tag, which then ends at our '}' and spans "rest-of-key{key". */
        if (memchr(key, '{', key_len)) {
            memmove(out + 1, out, key_len);
            out[0] = '{';
            out[key_len + 1] = '}';
            n = key_len + 2;
        } else {
            out[n++] = '{';
            memcpy(out + n, key, key_len);
            n += key_len;
            out[n++] = '}';
        }
    }
    memcpy(out + n, suffix, suffix_len);
    return n + suffix_len;
}
