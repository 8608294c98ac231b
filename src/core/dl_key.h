/*
 * dl_key — keys derived from a lock key, in the same Redis Cluster slot.
 *
 * A lock uses extra keys beside its own (the wake-up list, the fencing
 * counter, the fair-mode queue). Lua scripts touch them together, so on Redis
 * Cluster they must hash to the lock key's slot. The slot of a key is the
 * CRC16 of its hash tag (the bytes between the first '{' and the next '}',
 * when not empty) or of the whole key (redis.io, "Cluster specification:
 * hash tags"). So:
 *   - a key with a hash tag gets the suffix appended: "a{x}b" -> "a{x}b:wake";
 *   - a key without one is followed by itself as the tag:
 *     "lock:account:7" -> "lock:account:7{lock:account:7}:wake", whose tag is
 *     the whole original key. The derived key starts with the lock key, so an
 *     ACL key pattern for the prefix (~lock:*) covers it;
 *   - a key with an unclosed "{" (no valid tag) is wrapped: "{key}:wake".
 * A key without a valid tag that contains '}' cannot be wrapped that way; it
 * gets the plain suffix (a different slot: fine on one server, documented as
 * unsupported on Cluster).
 */
#ifndef DL_KEY_H
#define DL_KEY_H

#include <stddef.h>

/* Bytes dl_key_derive writes at most (no NUL is written). */
#define DL_KEY_DERIVED_MAX(key_len, suffix_len) (2 * (key_len) + (suffix_len) + 2)

/* 1 when key has a non-empty hash tag. */
int dl_key_has_tag(const char *key, size_t key_len);

/* Writes the derived key into out (room for DL_KEY_DERIVED_MAX bytes); returns its length. */
size_t dl_key_derive(const char *key, size_t key_len, const char *suffix, size_t suffix_len, char *out);

#endif
