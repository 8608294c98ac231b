<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use Illuminate\Contracts\Cache\LockProvider;
use Illuminate\Contracts\Cache\Store;

/**
 * The "distlock" cache store: values go to another configured store
 * ('store' => 'redis' in its config/cache.php entry); lock() and
 * restoreLock() are distlock's (CacheLock).
 *
 * Methods it does not have (e.g. the value store's connection()) are passed
 * to the value store.
 */
class DistLockStore implements Store, LockProvider
{
    /**
     * @param Store       $values         where cache values are kept
     * @param \DistLock   $client         lock client; its prefix = Redis prefix + cache prefix
     * @param float       $foreverTtl     lease of a lock asked for 0 seconds, s
     * @param string|null $connectionName Redis connection the locks live on
     */
    public function __construct(
        private Store $values,
        private \DistLock $client,
        private float $foreverTtl,
        private ?string $connectionName = null
    ) {
    }

    /**
     * @param string      $name    lock name (without prefix)
     * @param int|float   $seconds lease, s; 0 = "no expiry" = forever_ttl
     * @param string|null $owner   null: a fresh CSPRNG token
     */
    public function lock($name, $seconds = 0, $owner = null): CacheLock
    {
        return new CacheLock($this->client, (string) $name, $seconds, $owner, $this->foreverTtl, $this->connectionName);
    }

    /** A handle on a lock held by $owner (e.g. taken in another process). */
    public function restoreLock($name, $owner): CacheLock
    {
        return $this->lock($name, 0, $owner);
    }

    /**
     * The read (shared) side of a readers-writer lock on $name: distlock's own
     * (Laravel has none). Many readers at once; see ReadWriteCacheLock.
     *
     * @param int|float   $seconds lease, s; 0 = forever_ttl
     * @param string|null $owner   null: a fresh CSPRNG token; a known owner restores its lease
     */
    public function readLock($name, $seconds = 0, $owner = null): ReadWriteCacheLock
    {
        return new ReadWriteCacheLock($this->client, (string) $name, $seconds, $owner, true, $this->foreverTtl);
    }

    /**
     * The write (exclusive) side of the readers-writer lock on $name: waits
     * until no reader is left. distlock's own; see ReadWriteCacheLock.
     *
     * @param int|float   $seconds lease, s; 0 = forever_ttl
     * @param string|null $owner   null: a fresh CSPRNG token; a known owner restores its lease
     */
    public function writeLock($name, $seconds = 0, $owner = null): ReadWriteCacheLock
    {
        return new ReadWriteCacheLock($this->client, (string) $name, $seconds, $owner, false, $this->foreverTtl);
    }

    /**
     * All of $names or none: distlock's own multi-lock (Laravel has none); see MultiCacheLock.
     *
     * @param list<string> $names   1 to 64 distinct names
     * @param int|float    $seconds lease of each, s; 0 = forever_ttl
     */
    public function lockMany(array $names, $seconds = 0): MultiCacheLock
    {
        return new MultiCacheLock($this->client, array_values($names), $seconds, $this->foreverTtl);
    }

    /** The client the locks use (its prefix is the full key prefix). */
    public function lockClient(): \DistLock
    {
        return $this->client;
    }

    /** The store that holds the cache values. */
    public function valueStore(): Store
    {
        return $this->values;
    }

    public function get($key)
    {
        return $this->values->get($key);
    }

    public function many(array $keys)
    {
        return $this->values->many($keys);
    }

    public function put($key, $value, $seconds)
    {
        return $this->values->put($key, $value, $seconds);
    }

    public function putMany(array $values, $seconds)
    {
        return $this->values->putMany($values, $seconds);
    }

    /**
     * Stores $value if $key is absent: atomic when the value store has add()
     * (Redis does), else get-then-put.
     */
    public function add($key, $value, $seconds)
    {
        if (method_exists($this->values, 'add')) {
            return $this->values->add($key, $value, $seconds);
        }
        if ($this->values->get($key) !== null) {
            return false;
        }
        return $this->values->put($key, $value, $seconds);
    }

    public function increment($key, $value = 1)
    {
        return $this->values->increment($key, $value);
    }

    public function decrement($key, $value = 1)
    {
        return $this->values->decrement($key, $value);
    }

    public function forever($key, $value)
    {
        return $this->values->forever($key, $value);
    }

    /**
     * Laravel 13's Store::touch(): resets the TTL of the value under $key, in
     * the value store (Laravel's RedisStore: EXPIRE, at least 1 s).
     *
     * @param string $key     cache key (without prefix)
     * @param int    $seconds new TTL, s
     * @return bool true when the value exists and its TTL was set, else false
     * @throws \BadMethodCallException when the value store has no touch()
     *   (Laravel 8 to 12: no caller there; Laravel 13's stores all have it)
     */
    public function touch($key, $seconds)
    {
        if (! method_exists($this->values, 'touch')) {
            throw new \BadMethodCallException(sprintf(
                'The distlock store\'s value store (%s) has no touch(): Laravel 13 adds it to every store',
                get_class($this->values)
            ));
        }
        return $this->values->touch($key, $seconds);
    }

    public function forget($key)
    {
        return $this->values->forget($key);
    }

    public function flush()
    {
        return $this->values->flush();
    }

    public function getPrefix()
    {
        return $this->values->getPrefix();
    }

    /** Passes other calls (e.g. connection(), lockConnection()) to the value store. */
    public function __call(string $method, array $parameters): mixed
    {
        return $this->values->{$method}(...$parameters);
    }
}
