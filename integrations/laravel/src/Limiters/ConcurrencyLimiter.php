<?php

declare(strict_types=1);

namespace DistLock\Laravel\Limiters;

use DistLock\LockLostException;
use DistLock\LockTimeoutException;
use Illuminate\Contracts\Redis\LimiterTimeoutException;

/**
 * Laravel's concurrency limiter (Illuminate\Redis\Limiters\ConcurrencyLimiter,
 * what Redis::funnel() builds) over distlock's counting semaphore
 * (DistLock::acquirePermits(), docs/primitives.md): at most $maxLocks
 * callbacks of $name run at once, across every process and server that
 * shares the Redis server.
 *
 * Where Laravel's limiter tries its slots and sleeps 250 ms between tries,
 * this one blocks on Redis and is woken by the release that frees a permit
 * (or at the earliest lease end): no polling; the $sleep argument is accepted
 * for compatibility and unused. Each holder has its own lease of
 * $releaseAfter seconds: a worker that dies returns its permit then.
 *
 * Not final: like Laravel's, a subclass may override release().
 */
class ConcurrencyLimiter
{
    /** The client the permits are taken with. */
    protected \DistLock $client;

    /** @var array<string, \DistLock\Lock> this instance's held permits by owner token (detached handles) */
    private array $held = [];

    /**
     * @param \DistLock|object $redis        a \DistLock client, or a Laravel Redis connection
     *                                       (phpredis or predis: the limiter talks to its server,
     *                                       database and key prefix)
     * @param string           $name         the limiter's name (the semaphore's)
     * @param int              $maxLocks     callbacks allowed at once, 1 to 1e9
     * @param int              $releaseAfter seconds a permit is held at most (its lease), > 0
     *
     * @throws \ValueError for $maxLocks or $releaseAfter out of range (and, from the extension,
     *   for an empty or too long name)
     * @throws \DistLock\Laravel\InvalidConfigurationException for a $redis that is neither
     */
    public function __construct(mixed $redis, protected $name, protected $maxLocks, protected $releaseAfter)
    {
        if (!is_int($maxLocks) || $maxLocks < 1) {
            throw new \ValueError(sprintf('%s(): Argument #3 ($maxLocks) must be an integer of at least 1, %s given', __METHOD__, var_export($maxLocks, true)));
        }
        if (!is_numeric($releaseAfter) || $releaseAfter <= 0) {
            throw new \ValueError(sprintf('%s(): Argument #4 ($releaseAfter) must be a number of seconds greater than 0, %s given', __METHOD__, var_export($releaseAfter, true)));
        }
        $this->client = ConnectionClient::of($redis);
    }

    /**
     * Takes a permit, waiting at most $timeout seconds, and runs $callback;
     * the permit is released when the callback returns or throws. Without a
     * callback the permit is kept (until its lease of $releaseAfter seconds
     * ends) and true returned.
     *
     * @param int|float     $timeout  seconds to wait for a permit (0: one attempt)
     * @param callable|null $callback
     * @param int           $sleep    unused (Laravel's poll interval, ms): this limiter is woken, not polling
     * @return mixed the callback's return value, or true without a callback
     *
     * @throws LimiterTimeoutException when no permit was free within $timeout, or at once when
     *   waiting would deadlock (the cycle in the message, a \DistLock\DeadlockException as previous)
     * @throws \DistLock\ConnectionException on network errors
     * @throws \Throwable what the callback throws (after the release)
     */
    public function block($timeout, $callback = null, $sleep = 250)
    {
        $token = bin2hex(random_bytes(16));
        try {
            $lease = $this->client->acquirePermits((string) $this->name, $this->maxLocks, 1, (float) $this->releaseAfter, max(0.0, (float) $timeout), token: $token);
        } catch (\DistLock\DeadlockException $e) {
            // The wait would close a cycle of waits across processes: refused at once.
            throw new LimiterTimeoutException(sprintf('No slot of the "%s" limiter was taken: %s', $this->name, $e->getMessage()), 0, $e);
        } catch (LockTimeoutException $e) {
            throw new LimiterTimeoutException(sprintf('No slot of the "%s" limiter (%d at once) was free within %s seconds.', $this->name, $this->maxLocks, $timeout), 0, $e);
        }
        $lease->detach();
        $this->held[$token] = $lease;

        if (is_callable($callback)) {
            try {
                $result = $callback();
            } catch (\Throwable $e) {
                $this->release($this->name, $token);
                throw $e;
            }
            $this->release($this->name, $token);

            return $result;
        }

        return true;
    }

    /**
     * Gives the permit held under $id back (owner-checked; wakes a waiter).
     * A permit whose lease ended meanwhile is not released twice.
     *
     * @param string $key the limiter's name
     * @param string $id  the permit's owner token
     *
     * @throws \DistLock\ConnectionException on network errors
     */
    protected function release($key, $id)
    {
        $lease = $this->held[$id] ?? null;
        unset($this->held[$id]);
        if ($lease === null) {
            try {
                $lease = $this->client->restorePermits((string) $key, (string) $id);
            } catch (LockLostException) {
                return;
            }
        }
        $lease->release();
    }
}
