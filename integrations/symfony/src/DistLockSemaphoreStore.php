<?php

declare(strict_types=1);

namespace DistLock\Symfony;

use DistLock\ConnectionException;
use DistLock\LockLostException;
use Symfony\Component\Semaphore\Exception\InvalidArgumentException;
use Symfony\Component\Semaphore\Exception\SemaphoreAcquiringException;
use Symfony\Component\Semaphore\Exception\SemaphoreExpiredException;
use Symfony\Component\Semaphore\Exception\SemaphoreReleasingException;
use Symfony\Component\Semaphore\Key;
use Symfony\Component\Semaphore\PersistingStoreInterface;

/**
 * A symfony/semaphore store over distlock's counting semaphore
 * (`DistLock::acquirePermits()`, docs/primitives.md), for symfony/semaphore
 * 5.4 to 7.x.
 *
 * - A Key of limit L and weight W takes W of the L permits of the semaphore
 *   named by the Key's resource (the Redis keys are the client's `prefix`
 *   followed by the resource, and its companion keys in the same hash slot).
 * - Every holder (Key) has its own lease: a process that dies returns its
 *   permits when its lease ends, never later. The limit is what each Key
 *   says: all Keys of one resource should give the same.
 * - The owner token (32 hex characters from the CSPRNG) is kept in the Key's
 *   state; a Key saved in one process can be checked, refreshed or released in
 *   another (`restorePermits()` by its token).
 * - Leases are detached from PHP object lifetime: symfony's Semaphore decides
 *   about releasing (its `autoRelease`).
 * - Network, protocol and server errors throw SemaphoreReleasingException from
 *   delete() and the extension's `DistLock\ConnectionException` elsewhere
 *   (symfony's Semaphore wraps those in its RuntimeException), never
 *   SemaphoreAcquiringException: a failure is not "the limit is reached".
 *
 * Durations are float seconds; the extension rounds a ttl up to whole
 * milliseconds.
 */
final class DistLockSemaphoreStore implements PersistingStoreInterface
{
    /** Largest ttl the extension accepts, seconds. */
    private const MAX_TTL = 1e9;

    /**
     * This process's detached handles on the Keys' permits (Key => [pid,
     * DistLock\Lock]): one round trip per operation.
     *
     * @var \WeakMap<Key, array{int, \DistLock\Lock}>
     */
    private \WeakMap $handles;

    /**
     * @param \DistLock $client the client whose connection and `prefix` the store uses;
     *                          one server, Sentinel or Cluster (a Redlock client offers
     *                          no semaphores: save() then throws the extension's \ValueError)
     */
    public function __construct(private readonly \DistLock $client)
    {
        $this->handles = new \WeakMap();
    }

    /**
     * Takes the Key's weight in permits of its limit, with a lease of
     * $ttlInSecond. A Key that holds its permits already has its lease reset.
     *
     * @param float $ttlInSecond seconds, > 0 and at most 1e9
     *
     * @throws SemaphoreAcquiringException when the permits are not free now (the limit is reached)
     * @throws SemaphoreExpiredException   when the Key's lifetime ran out meanwhile (the permits are released)
     * @throws InvalidArgumentException    for a ttl out of range
     * @throws ConnectionException         on network, protocol or server errors
     * @throws \ValueError                 for a resource the extension refuses (empty, over 1024
     *                                     bytes) or a Redlock client, saying why
     */
    public function save(Key $key, float $ttlInSecond): void
    {
        self::checkTtl($ttlInSecond);
        $key->reduceLifetime($ttlInSecond);

        if (($h = $this->handle($key)) !== null && $h->refresh($ttlInSecond)) {
            $this->checkNotExpired($key);

            return;
        }
        $held = $this->client->tryAcquirePermits((string) $key, $key->getLimit(), $key->getWeight(), $ttlInSecond, token: $this->token($key));
        if ($held === null) {
            throw new SemaphoreAcquiringException($key, \sprintf('%d of its %d permits are not free now', $key->getWeight(), $key->getLimit()));
        }
        $held->detach();
        $this->handles[$key] = [getmypid(), $held];

        $this->checkNotExpired($key);
    }

    /**
     * Resets the lease of the Key's permits to $ttlInSecond, if it still holds them.
     *
     * @throws SemaphoreExpiredException when the Key holds no live permits (never saved, released, lease ended)
     * @throws InvalidArgumentException  for a ttl out of range
     * @throws ConnectionException       on network, protocol or server errors
     */
    public function putOffExpiration(Key $key, float $ttlInSecond): void
    {
        self::checkTtl($ttlInSecond);
        $key->reduceLifetime($ttlInSecond);
        $h = $this->handle($key);
        if ($h === null || !$h->refresh($ttlInSecond)) {
            // The first sentence is symfony's own wording for this case (its
            // RedisStore's, which symfony's store tests expect); the second is ours.
            throw new SemaphoreExpiredException($key, 'the script returns a positive number. distlock found no live permits of it held under this key\'s token');
        }
        $this->checkNotExpired($key);
    }

    /**
     * Releases the Key's permits if it holds them (owner-checked; wakes as
     * many waiters as the permits freed allow). A Key that holds none is
     * ignored. The Key forgets its token.
     *
     * @throws SemaphoreReleasingException on network, protocol or server errors
     */
    public function delete(Key $key): void
    {
        try {
            $this->handle($key)?->release();
        } catch (ConnectionException $e) {
            throw new SemaphoreReleasingException($key, $e->getMessage());
        }
        $key->removeState(self::class);
        unset($this->handles[$key]);
    }

    /**
     * @return bool whether the Key holds live permits now (one round trip; none for a Key never saved)
     *
     * @throws ConnectionException on network, protocol or server errors
     */
    public function exists(Key $key): bool
    {
        $h = $this->handle($key);

        return $h !== null && $h->isAcquired();
    }

    /**
     * This process's handle on the Key's permits, adopted by token when the
     * Key comes from elsewhere; null when it holds none.
     */
    private function handle(Key $key): ?\DistLock\Lock
    {
        if (!$key->hasState(self::class)) {
            return null;
        }
        $cached = $this->handles[$key] ?? null;
        if ($cached !== null && $cached[0] === getmypid()) {
            return $cached[1];
        }
        try {
            $h = $this->client->restorePermits((string) $key, $key->getState(self::class));
        } catch (LockLostException) {
            return null;
        }
        $h->detach();
        $this->handles[$key] = [getmypid(), $h];

        return $h;
    }

    /** The Key's owner token, made on first use: 32 hex characters from the CSPRNG. */
    private function token(Key $key): string
    {
        if (!$key->hasState(self::class)) {
            $key->setState(self::class, bin2hex(random_bytes(16)));
        }

        return $key->getState(self::class);
    }

    private static function checkTtl(float $ttl): void
    {
        if (!($ttl > 0) || $ttl > self::MAX_TTL) {
            throw new InvalidArgumentException(\sprintf('The TTL should be greater than 0 and at most 1e9 seconds, "%s" given.', $ttl));
        }
    }

    /**
     * A Key whose lifetime ran out is released (errors swallowed: the expiry
     * is the issue to report) and reported.
     *
     * @throws SemaphoreExpiredException
     */
    private function checkNotExpired(Key $key): void
    {
        if ($key->isExpired()) {
            try {
                $this->delete($key);
            } catch (\Exception) {
                // Keep the original issue visible.
            }
            throw new SemaphoreExpiredException($key, 'its lifetime ran out while it was stored');
        }
    }
}
