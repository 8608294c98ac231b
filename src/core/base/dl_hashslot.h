/*
 * dl_hashslot — the Redis Cluster hash slot of a key: what the key scheme
 * (lease/dl_key) needs to keep a lock's companion keys in its slot, and what
 * the Cluster router (topology/dl_cluster) routes by. Pure computation.
 *
 * Sources (redis.io, "Redis cluster specification"):
 *   - key distribution model: HASH_SLOT = CRC16(key) mod 16384, CRC16 being
 *     the XMODEM variant (poly 0x1021, init 0, no reflection, no final xor),
 *     Appendix A, test vector "123456789" -> 0x31C3;
 *   - hash tags: when the key holds a '{' and, after the first '{', a '}'
 *     with at least one byte between them, only those bytes are hashed.
 */
#ifndef DL_HASHSLOT_H
#define DL_HASHSLOT_H

#include <stddef.h>
#include <stdint.h>

#define DL_SLOTS 16384

/* CRC16/XMODEM of buf[0..len), continuing from crc (0 to start). */
uint16_t dl_crc16_update(uint16_t crc, const char *buf, size_t len);

/* CRC16/XMODEM of buf[0..len): dl_crc16("123456789", 9) == 0x31C3. */
uint16_t dl_crc16(const char *buf, size_t len);

/* The hash slot (0..16383) of key[0..len), with hash tags. Binary-safe. */
unsigned dl_slot_of(const char *key, size_t len);

#endif
