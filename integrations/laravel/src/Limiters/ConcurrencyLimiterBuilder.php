<?php

declare(strict_types=1);

namespace DistLock\Laravel\Limiters;

use Illuminate\Contracts\Redis\LimiterTimeoutException;

/**
 * The fluent API of Laravel's Redis::funnel() (Illuminate\Redis\Limiters\
 * ConcurrencyLimiterBuilder), building a distlock ConcurrencyLimiter:
 *
 *     Concurrency::funnel('pdf')->limit(4)->releaseAfter(120)->block(10)
 *         ->then(fn () => render(), fn () => $job->release(30));
 *
 * Defaults as Laravel's: releaseAfter 60 s, block 3 s.
 */
class ConcurrencyLimiterBuilder
{
    /** Callbacks allowed at once. */
    public int $maxLocks = 1;

    /** Seconds a permit is held at most. */
    public int $releaseAfter = 60;

    /** Seconds to wait for a permit. */
    public int|float $timeout = 3;

    /** Accepted for compatibility with Laravel's builder; unused (no polling). */
    public int $sleep = 250;

    /**
     * @param \DistLock|object $connection a \DistLock client or a Laravel Redis connection
     * @param string           $name       the limiter's name
     */
    public function __construct(public mixed $connection, public string $name)
    {
    }

    /** At most $maxLocks callbacks at once. */
    public function limit(int $maxLocks): static
    {
        $this->maxLocks = $maxLocks;

        return $this;
    }

    /**
     * How long a permit is held at most: seconds, or a moment/interval from now.
     */
    public function releaseAfter(\DateTimeInterface|\DateInterval|int $releaseAfter): static
    {
        if ($releaseAfter instanceof \DateInterval) {
            $releaseAfter = (new \DateTimeImmutable())->add($releaseAfter);
        }
        $this->releaseAfter = $releaseAfter instanceof \DateTimeInterface
            ? max(1, $releaseAfter->getTimestamp() - time())
            : $releaseAfter;

        return $this;
    }

    /** Seconds to wait for a permit (0: one attempt). */
    public function block(int|float $timeout): static
    {
        $this->timeout = $timeout;

        return $this;
    }

    /** Laravel's poll interval (ms); kept for compatibility, unused. */
    public function sleep(int $sleep): static
    {
        $this->sleep = $sleep;

        return $this;
    }

    /**
     * Runs $callback under a permit; when none is free within the block time,
     * runs $failure (with the LimiterTimeoutException) or throws.
     *
     * @return mixed what $callback or $failure returns
     *
     * @throws LimiterTimeoutException without $failure, when no permit was free in time
     */
    public function then(callable $callback, ?callable $failure = null): mixed
    {
        try {
            return (new ConcurrencyLimiter($this->connection, $this->name, $this->maxLocks, $this->releaseAfter))
                ->block($this->timeout, $callback, $this->sleep);
        } catch (LimiterTimeoutException $e) {
            if ($failure) {
                return $failure($e);
            }
            throw $e;
        }
    }
}
