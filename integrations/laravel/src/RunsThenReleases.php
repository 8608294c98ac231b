<?php

declare(strict_types=1);

namespace DistLock\Laravel;

/**
 * The end of block() (and get()) of the package's locks, as Laravel's own:
 * with a callback, run it and release in all cases; without, keep the lock.
 *
 * @internal
 */
trait RunsThenReleases
{
    /**
     * @return mixed the callback's value, or true without a callback
     * @throws \Throwable what the callback throws (after the release)
     */
    private function runThenRelease($callback)
    {
        if (!is_callable($callback)) {
            return true;
        }
        try {
            return $callback();
        } finally {
            $this->release();
        }
    }
}
