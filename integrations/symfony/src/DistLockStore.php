<?php

declare(strict_types=1);

namespace DistLock\Symfony;

use DistLock\ConnectionException;
use DistLock\LockTimeoutException;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;

/**
 * A symfony/lock store over the distlock extension (symfony/lock 5.4 to 7.x).
 *
 * - The Redis key is the DistLock client's `prefix` option followed by the
 *   Key's resource (`(string) $key`); its value is the owner token, a string
 *   of 32 hex characters (128 bits from the OS CSPRNG) kept in the Key's state.
 *   The Key stays serializable: a lock taken in one process can be refreshed
 *   or released in another (`LockFactory::createLockFromKey()`).
 * - Every lease this store makes is detached from PHP object lifetime: neither
 *   the destruction of a PHP object nor request end releases it. symfony/lock's
 *   own `Lock` decides that (its `autoRelease` argument).
 * - `waitAndSave()` blocks on Redis (BLPOP) and is woken by the holder's
 *   release: `Lock::acquire(true)` does not poll.
 * - Network, protocol and server errors throw LockStorageException (the
 *   extension's exception as previous), never LockConflictedException.
 *
 * Durations are float seconds. The extension rounds a ttl up to whole
 * milliseconds.
 */
final class DistLockStore implements BlockingStoreInterface
{
    /** Largest ttl the extension accepts, seconds. */
    private const MAX_TTL = 1e9;

    /**
     * One lock() call of waitAndSave() waits at most this long, seconds; the
     * wait then starts again (symfony's waitAndSave() has no limit).
     */
    private const WAIT_SLICE = 300.0;

    /**
     * @param \DistLock $client     the client whose connection, prefix and options
     *                              (e.g. `fair`, `persistent`) the store uses
     * @param float     $initialTtl lease length of save() and waitAndSave(), seconds
     *                              (> 0, at most 1e9); symfony's Lock then sets its own
     *                              ttl with putOffExpiration() when it has one
     *
     * @throws InvalidTtlException when $initialTtl is not > 0 or larger than 1e9
     */
    public function __construct(
        private readonly \DistLock $client,
        private readonly float $initialTtl = 300.0,
    ) {
        if (!($initialTtl > 0) || $initialTtl > self::MAX_TTL) {
            throw new InvalidTtlException(\sprintf('"%s()" expects a TTL greater than 0 and at most 1e9 seconds, got %s.', __METHOD__, $initialTtl));
        }
    }

    /**
     * Takes the lock for $key in one attempt, with a lease of the initial ttl.
     * Saving a key that already holds the lock refreshes its lease.
     *
     * @throws LockConflictedException when another key holds the lock
     * @throws LockExpiredException    when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException    on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses (empty, over 1024 bytes), saying why
     *   (an \Error, so that Lock::acquire() does not hide the reason under "Failed to acquire")
     */
    public function save(Key $key): void
    {
        $name = (string) $key;
        $token = $this->token($key);
        $ttl = $this->initialTtl;
        $key->reduceLifetime($ttl);

        $acquired = $this->call(static fn (\DistLock $c) => $c->tryLock($name, $ttl, token: $token), $key, 'save');
        if ($acquired !== null) {
            $acquired->detach();
        } elseif (!$this->refreshIfOurs($name, $token, $ttl, $key, 'save')) {
            throw new LockConflictedException(\sprintf('The "%s" lock is held by another key.', $name));
        }

        $this->checkNotExpired($key);
    }

    /**
     * Waits until the lock for $key is free and takes it, with a lease of the
     * initial ttl. The wait blocks on Redis and is woken by the release; it has
     * no time limit (like symfony's stores; PHP's max_execution_time still applies).
     *
     * @throws LockExpiredException  when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException  on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses, saying why
     */
    public function waitAndSave(Key $key): void
    {
        $name = (string) $key;
        $hadToken = $key->hasState(self::class);
        $token = $this->token($key);
        $ttl = $this->initialTtl;

        // A key that was saved before may hold the lock already: waiting for
        // our own lease to end would never be woken. Refresh it instead.
        if ($hadToken) {
            $asked = microtime(true);
            if ($this->refreshIfOurs($name, $token, $ttl, $key, 'save')) {
                $key->reduceLifetime($ttl - (microtime(true) - $asked));
                $this->checkNotExpired($key);

                return;
            }
        }

        $start = microtime(true);
        while (true) {
            try {
                $lease = $this->call(static fn (\DistLock $c) => $c->lock($name, $ttl, self::WAIT_SLICE, token: $token), $key, 'save');
                break;
            } catch (LockTimeoutException) {
                // No limit: wait again.
            }
        }
        $lease->detach();

        // The lease began between $start and now. Counting from $start is the
        // safe bound and costs nothing; after a wait longer than a tenth of the
        // ttl, ask Redis how much is left instead (one more round trip).
        if (microtime(true) - $start <= $ttl / 10) {
            $key->reduceLifetime($ttl - (microtime(true) - $start));
        } else {
            $asked = microtime(true);
            $left = $this->call(static fn () => $lease->remainingLifetime(), $key, 'save');
            $key->reduceLifetime($left - (microtime(true) - $asked));
        }

        $this->checkNotExpired($key);
    }

    /**
     * Resets the lease of $key to $ttl seconds if the key still holds the lock
     * (owner-checked).
     *
     * @param float $ttl seconds; 0 or less lets the lock expire at once (LockExpiredException)
     *
     * @throws LockConflictedException when the key does not hold the lock (lost, expired, never saved)
     * @throws LockExpiredException    when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException    on network, protocol or server errors
     * @throws InvalidTtlException     for a ttl that is not finite or larger than 1e9
     */
    public function putOffExpiration(Key $key, float $ttl): void
    {
        if (is_nan($ttl) || $ttl > self::MAX_TTL) {
            throw new InvalidTtlException(\sprintf('"%s()" expects a TTL of at most 1e9 seconds, got %s.', __METHOD__, $ttl));
        }
        $name = (string) $key;
        if (!$key->hasState(self::class)) {
            throw new LockConflictedException(\sprintf('The "%s" lock was not saved by this key.', $name));
        }
        $token = $key->getState(self::class);
        $key->reduceLifetime($ttl);

        if ($ttl <= 0) {
            // Redis cannot hold a lease of no time; symfony's stores let it lapse.
            $this->checkNotExpired($key);
        }

        if (!$this->refreshIfOurs($name, $token, $ttl, $key, 'refresh')) {
            throw new LockConflictedException(\sprintf('The "%s" lock is no longer held by this key.', $name));
        }

        $this->checkNotExpired($key);
    }

    /**
     * Releases the lock if $key holds it (owner-checked compare-and-delete; wakes
     * a waiter). A key that was never saved, or whose lock was lost, is silently
     * ignored. The key forgets its token: a later save() uses a fresh one.
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    public function delete(Key $key): void
    {
        if (!$key->hasState(self::class)) {
            return;
        }
        $name = (string) $key;
        $token = $key->getState(self::class);
        try {
            $this->call(static fn (\DistLock $c) => $c->release($name, $token), $key, 'release');
        } catch (LockStorageException $e) {
            if (!self::isForeignKey($e)) {
                throw $e;
            }
        }
        $key->removeState(self::class);
    }

    /**
     * @return bool whether $key holds the lock right now (one round trip; none for a key never saved)
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    public function exists(Key $key): bool
    {
        if (!$key->hasState(self::class)) {
            return false;
        }
        $name = (string) $key;
        $token = $key->getState(self::class);

        try {
            return $this->call(static fn (\DistLock $c) => $c->owner($name), $key, 'check') === $token;
        } catch (LockStorageException $e) {
            if (self::isForeignKey($e)) {
                return false;
            }
            throw $e;
        }
    }

    /**
     * Owner-checked refresh: true when $name is held with $token (lease reset to
     * $ttl), false when it is free or held by another owner.
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    private function refreshIfOurs(string $name, string $token, float $ttl, Key $key, string $what): bool
    {
        try {
            return $this->call(static fn (\DistLock $c) => $c->refresh($name, $token, $ttl), $key, $what);
        } catch (LockStorageException $e) {
            if (self::isForeignKey($e)) {
                return false;
            }
            throw $e;
        }
    }

    /**
     * Whether Redis refused a command because the key holds another type: a
     * lock of another kind owns it (symfony's RedisStore keeps a sorted set
     * under the same name when the prefix is ''). That is a definite answer
     * from the server, "not ours", not a failure.
     */
    private static function isForeignKey(LockStorageException $e): bool
    {
        $previous = $e->getPrevious();

        return $previous instanceof ConnectionException && str_contains($previous->getMessage(), 'WRONGTYPE');
    }

    /** The key's owner token, made on first use: 32 hex characters from the CSPRNG. */
    private function token(Key $key): string
    {
        if (!$key->hasState(self::class)) {
            $key->setState(self::class, bin2hex(random_bytes(16)));
        }

        return $key->getState(self::class);
    }

    /**
     * Runs one extension call, mapping its errors to symfony/lock's exceptions.
     * LockTimeoutException passes through (waitAndSave() handles it).
     */
    private function call(callable $op, Key $key, string $what): mixed
    {
        try {
            return $op($this->client);
        } catch (ConnectionException $e) {
            throw new LockStorageException(\sprintf('Failed to %s the "%s" lock: %s', $what, $key, $e->getMessage()), 0, $e);
        } catch (LockTimeoutException $e) {
            throw $e;
        } catch (\DistLock\Exception $e) {
            throw new LockStorageException(\sprintf('Failed to %s the "%s" lock: %s', $what, $key, $e->getMessage()), 0, $e);
        } catch (\ValueError $e) {
            // A \ValueError, not symfony's InvalidArgumentException: Lock::acquire() wraps
            // every \Exception in "Failed to acquire the ... lock." and the reason would be
            // left in getPrevious(); an \Error reaches the caller with it.
            throw new \ValueError(\sprintf('Cannot %s the "%s" lock: %s', $what, $key, self::why($e->getMessage())), 0, $e);
        }
    }

    /** The extension's reason, in the store's terms (the resource is the lock name). */
    private static function why(string $message): string
    {
        if (str_contains($message, '($name) must not be empty')) {
            return 'the resource name is empty; distlock names (and so symfony/lock resources on this store) are 1 to 1024 bytes';
        }
        if (str_contains($message, '($name)')) {
            return 'the resource name is not a valid distlock name (1 to 1024 bytes): ' . $message;
        }
        return $message;
    }

    /**
     * Like symfony's ExpiringStoreTrait: a key whose lifetime ran out is released
     * (errors swallowed, the expiry is the issue to report) and reported.
     *
     * @throws LockExpiredException
     */
    private function checkNotExpired(Key $key): void
    {
        if ($key->isExpired()) {
            try {
                $this->delete($key);
            } catch (\Exception) {
                // Keep the original issue visible.
            }
            throw new LockExpiredException(\sprintf('Failed to store the "%s" lock.', $key));
        }
    }
}
