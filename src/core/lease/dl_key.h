/*
 * dl_key — keys derived from a lock key, in the same Redis Cluster slot.
 *
 * A lock uses extra keys beside its own (the wake-up list, the fencing
 * counter, the fair-mode queue, a fair waiter's own wake list "...:wake:" +
 * token). Lua scripts touch them together, so on Redis Cluster they must hash
 * to the lock key's slot, for every lock key, whatever bytes it holds. The
 * slot of a key is the CRC16 of its hash tag (the bytes between the first '{'
 * and the next '}', when not empty) or of the whole key (redis.io, "Redis
 * cluster specification", hash tags; base/dl_hashslot.h). K is the lock key, S the
 * suffix; the first matching rule applies:
 *
 *   1. K has a hash tag:                 K S            "a{x}b" -> "a{x}b:wake"
 *   2. K has neither '{' nor '}':        K {K} S        "lock:7" -> "lock:7{lock:7}:wake"
 *   3. K has '{' but no '}':             {K} S          "a{b"   -> "{a{b}:wake"
 *   (K has no tag and holds a '}': its slot is CRC16(K), and no tag made of
 *    K's bytes can reproduce it, since a tag cannot contain '}'. A short tag
 *    T of 3 letters/digits with the right CRC16 is searched instead:)
 *   4. K has '}' but no '{':             K {T} S        slot(T) = slot(K)
 *   5. K's first '{' is not followed at once by '}' (it is followed by
 *      other bytes, none of them '}' or K would have a tag, or it ends K):
 *      the derived key closes K's own open tag:
 *                                        K T } S        slot(R T) = slot(K),
 *      R being the bytes of K after its first '{', maybe none (the tag is R T);
 *   6. K's first '{' is followed at once by '}' ("a{}b"): no key that
 *      starts with K has a tag, so the tag goes first:
 *                                        {T} K S        slot(T) = slot(K)
 *
 * Rules 1–3 are the scheme of earlier releases, unchanged (locks held across
 * an upgrade keep their companions). Every derived key except rules 3 and 6
 * starts with K, so an ACL key pattern for the prefix (~lock:*) covers it;
 * every derived key holds a valid tag, so appending more bytes (the fair
 * waiter's token) keeps the slot. T is the first tag, in a fixed order, with
 * the wanted CRC: the same key always derives the same names; test_key
 * proves that 3 bytes always suffice (the CRC of a 3-byte tag, XORed with a
 * constant fixed by R, covers all 16384 slots).
 */
#ifndef DL_KEY_H
#define DL_KEY_H

#include <stddef.h>

/* Length of the searched tag T (rules 4–6). */
#define DL_KEY_TAG_LEN 3

/* Bytes dl_key_derive writes at most (no NUL is written): rule 2, or K plus T, braces and S. */
#define DL_KEY_DERIVED_MAX(key_len, suffix_len) (2 * (key_len) + (suffix_len) + DL_KEY_TAG_LEN + 2)

/* 1 when key has a non-empty hash tag. */
int dl_key_has_tag(const char *key, size_t key_len);

/*
 * Writes the key derived from key[0..key_len) (binary-safe, key_len >= 1)
 * and suffix[0..suffix_len) into out (room for DL_KEY_DERIVED_MAX bytes), by
 * the rules above; returns its length. dl_slot_of(out) == dl_slot_of(key),
 * also for out followed by any bytes. Rules 4–6 cost a search of about 16k
 * CRC steps (tens of µs), only for keys without a tag that hold a '}'.
 */
size_t dl_key_derive(const char *key, size_t key_len, const char *suffix, size_t suffix_len, char *out);

/*
 * The tag search of rules 4–6: writes into tag[0..DL_KEY_TAG_LEN) the first
 * tag T (letters and digits, in a fixed order) such that
 * CRC16(bytes hashed before T, given as their CRC `crc_before`, then T) mod
 * 16384 == slot. Returns 1, or 0 when none exists (never, see test_key).
 */
int dl_key_find_tag(unsigned crc_before, unsigned slot, char *tag);

/*
 * The fencing counter of a slot
 * (docs/decisions/0015-fencing-counter-per-hash-slot.md). Every fenced grant
 * of every name whose key hashes to `slot` increments one counter, so fencing
 * over any number of names keeps at most 16384 counters per prefix (Redis
 * Cluster's slot count), and a name's tokens
 * still strictly increase: one slot's counter orders every grant of every
 * name in it, and it moves with its slot when a cluster reshards. The key
 * starts with the prefix (the ACL pattern ~<prefix>* covers it) and hashes to
 * `slot`:
 *   prefix without '{' or '}':   prefix "distlock:fence{" T "}"   slot(T) = slot
 *   prefix with a hash tag:      prefix "distlock:fence"  (every key under it
 *                                                  is in that tag's slot)
 * T is dl_key_slot_tag(slot). Writes it into out (room for
 * DL_KEY_COUNTER_MAX(prefix_len) bytes, no NUL) and returns its length; 0
 * for any other prefix (a '{' or '}' but no tag: which slot a key lands in
 * then depends on the name), where the caller keeps a counter per name.
 */
/* What follows the prefix in every fencing counter's key: names beginning so are refused (the glue). */
#define DL_KEY_FENCE_MARK "distlock:fence"
#define DL_KEY_FENCE_MARK_LEN 14
#define DL_KEY_COUNTER_MAX(prefix_len) ((prefix_len) + DL_KEY_FENCE_MARK_LEN + DL_KEY_TAG_LEN + 2)
size_t dl_key_fence_counter(const char *prefix, size_t prefix_len, unsigned slot, char *out);

/*
 * The tag of a slot: the first tag (dl_key_find_tag's order, from CRC 0)
 * whose CRC16 lands in `slot` (0..16383), into tag[0..DL_KEY_TAG_LEN).
 * Every client derives the same tag for a slot. A table built once per
 * process (about 1 ms, thread-safe); then a copy.
 */
void dl_key_slot_tag(unsigned slot, char *tag);

/*
 * Builds the slot tag table now. The module's startup calls it on the thread
 * that starts PHP, before any request thread or the watchdog exists, so every
 * later dl_key_slot_tag() only reads (a thread checker then sees the build
 * before every read, which the pthread_once fast path alone does not show).
 */
void dl_key_init(void);

#endif
