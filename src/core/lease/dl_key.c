#include "dl_key.h"

#include <pthread.h>
#include <string.h>

#include "../base/dl_hashslot.h"

static const char tag_alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
#define TAG_ALPHABET_LEN (sizeof(tag_alphabet) - 1)

int dl_key_has_tag(const char *key, size_t key_len)
{
    const char *open = key_len ? memchr(key, '{', key_len) : NULL, *close;
    if (!open) return 0;
    close = memchr(open + 1, '}', key_len - (size_t)(open + 1 - key));
    return close != NULL && close > open + 1;
}

int dl_key_find_tag(unsigned crc_before, unsigned slot, char *tag)
{
    size_t a, b, c;
    /* Incremental CRC: the state after the first two letters is reused for the third. */
    for (a = 0; a < TAG_ALPHABET_LEN; a++) {
        uint16_t ca = dl_crc16_update((uint16_t)crc_before, &tag_alphabet[a], 1);
        for (b = 0; b < TAG_ALPHABET_LEN; b++) {
            uint16_t cb = dl_crc16_update(ca, &tag_alphabet[b], 1);
            for (c = 0; c < TAG_ALPHABET_LEN; c++) {
                if ((dl_crc16_update(cb, &tag_alphabet[c], 1) & (DL_SLOTS - 1)) == slot) {
                    tag[0] = tag_alphabet[a];
                    tag[1] = tag_alphabet[b];
                    tag[2] = tag_alphabet[c];
                    return 1;
                }
            }
        }
    }
    return 0;
}

size_t dl_key_derive(const char *key, size_t key_len, const char *suffix, size_t suffix_len, char *out)
{
    const char *open = key_len ? memchr(key, '{', key_len) : NULL;
    int has_close = key_len && memchr(key, '}', key_len) != NULL;
    unsigned slot;
    char tag[DL_KEY_TAG_LEN];
    size_t n = 0;

    if (dl_key_has_tag(key, key_len)) {                        /* 1 */
        memcpy(out, key, key_len);
        n = key_len;
    } else if (!has_close && !open) {                          /* 2 */
        memcpy(out, key, key_len);
        n = key_len;
        out[n++] = '{';
        memcpy(out + n, key, key_len);
        n += key_len;
        out[n++] = '}';
    } else if (!has_close) {                                   /* 3: our '{' must come first */
        out[n++] = '{';
        memcpy(out + n, key, key_len);
        n += key_len;
        out[n++] = '}';
    } else {
        slot = dl_slot_of(key, key_len);   /* no tag: CRC16 of the whole key */
        if (!open) {                                           /* 4 */
            if (!dl_key_find_tag(0, slot, tag)) goto plain;
            memcpy(out, key, key_len);
            n = key_len;
            out[n++] = '{';
            memcpy(out + n, tag, DL_KEY_TAG_LEN);
            n += DL_KEY_TAG_LEN;
            out[n++] = '}';
        } else if (open + 1 == key + key_len || open[1] != '}') {   /* 5 ("a}b{c", "}{") */
            size_t rest = key_len - (size_t)(open + 1 - key);
            if (!dl_key_find_tag(dl_crc16(open + 1, rest), slot, tag)) goto plain;
            memcpy(out, key, key_len);
            n = key_len;
            memcpy(out + n, tag, DL_KEY_TAG_LEN);
            n += DL_KEY_TAG_LEN;
            out[n++] = '}';
        } else {                                               /* 6 ("a{}b", "{}") */
            if (!dl_key_find_tag(0, slot, tag)) goto plain;
            out[n++] = '{';
            memcpy(out + n, tag, DL_KEY_TAG_LEN);
            n += DL_KEY_TAG_LEN;
            out[n++] = '}';
            memcpy(out + n, key, key_len);
            n += key_len;
        }
    }
    memcpy(out + n, suffix, suffix_len);
    return n + suffix_len;

plain:
    /* Unreachable (test_key proves a tag always exists); kept so that a
     * broken invariant degrades to a wrong slot, not to a crash. */
    memcpy(out, key, key_len);
    memcpy(out + key_len, suffix, suffix_len);
    return key_len + suffix_len;
}

static char slot_tags[DL_SLOTS][DL_KEY_TAG_LEN];
static pthread_once_t slot_tags_once = PTHREAD_ONCE_INIT;

/* Every 3-byte tag in dl_key_find_tag's order; a slot keeps the first that lands in it. */
static void build_slot_tags(void)
{
    static unsigned char filled[DL_SLOTS];
    size_t a, b, c;
    for (a = 0; a < TAG_ALPHABET_LEN; a++) {
        uint16_t ca = dl_crc16_update(0, &tag_alphabet[a], 1);
        for (b = 0; b < TAG_ALPHABET_LEN; b++) {
            uint16_t cb = dl_crc16_update(ca, &tag_alphabet[b], 1);
            for (c = 0; c < TAG_ALPHABET_LEN; c++) {
                unsigned s = dl_crc16_update(cb, &tag_alphabet[c], 1) & (DL_SLOTS - 1);
                if (filled[s]) continue;
                filled[s] = 1;
                slot_tags[s][0] = tag_alphabet[a];
                slot_tags[s][1] = tag_alphabet[b];
                slot_tags[s][2] = tag_alphabet[c];
            }
        }
    }
}

void dl_key_init(void)
{
    pthread_once(&slot_tags_once, build_slot_tags);
}

void dl_key_slot_tag(unsigned slot, char *tag)
{
    pthread_once(&slot_tags_once, build_slot_tags);
    memcpy(tag, slot_tags[slot & (DL_SLOTS - 1)], DL_KEY_TAG_LEN);
}

size_t dl_key_fence_counter(const char *prefix, size_t prefix_len, unsigned slot, char *out)
{
    static const char mark[] = DL_KEY_FENCE_MARK;
    int braces = prefix_len && (memchr(prefix, '{', prefix_len) || memchr(prefix, '}', prefix_len));
    size_t n;

    if (braces && !dl_key_has_tag(prefix, prefix_len)) return 0;
    if (prefix_len) memcpy(out, prefix, prefix_len);
    memcpy(out + prefix_len, mark, sizeof(mark) - 1);
    n = prefix_len + sizeof(mark) - 1;
    if (braces) return n;   /* the prefix's tag decides every slot under it */
    out[n++] = '{';
    dl_key_slot_tag(slot, out + n);
    n += DL_KEY_TAG_LEN;
    out[n++] = '}';
    return n;
}
