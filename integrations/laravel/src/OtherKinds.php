<?php

declare(strict_types=1);

namespace DistLock\Laravel;

/**
 * A name held under another kind of distlock lock ("one name, one kind": a
 * Cache::lock() mutex, a readLock()/writeLock() readers-writer lock, a
 * Concurrency::funnel() semaphore, a lockMany() member) is, to Laravel's lock
 * API, a lock held by someone else: get() is false, release() and refresh() are
 * false, block() waits. The extension refuses such a call at once (it does not
 * wait on another kind), so block() polls it out every 100 ms until its wait
 * runs out, as Laravel's own locks poll (every 250 ms).
 *
 * @internal
 */
trait OtherKinds
{
    /** Whether $e is the extension's refusal of a name held under another kind. */
    private static function isOtherKind(\Throwable $e): bool
    {
        return $e instanceof \DistLock\LockKindException;
    }

    /**
     * Runs $attempt(float $waitSeconds) until it returns; while it is refused
     * for another kind, sleeps 100 ms (never past the deadline) and tries again
     * with what is left of $seconds.
     *
     * @param float $seconds the whole wait, s (0: one attempt)
     * @return mixed what $attempt returns; null when the wait ran out on another kind
     * @throws \Throwable what $attempt throws, but the refusal for another kind
     */
    private function waitOutOtherKinds(float $seconds, callable $attempt): mixed
    {
        $deadline = hrtime(true) + (int) ($seconds * 1e9);
        while (true) {
            $left = max(0.0, ($deadline - hrtime(true)) / 1e9);
            try {
                return $attempt($left);
            } catch (\Exception $e) {
                if (!self::isOtherKind($e)) {
                    throw $e;
                }
                if ($left <= 0.0) {
                    return null;
                }
                usleep((int) min(100000, $left * 1e6));
            }
        }
    }

    /**
     * Runs $op; the refusal for another kind is $whenOtherKind (e.g. false:
     * "not held by this owner").
     *
     * @throws \Throwable what $op throws, but the refusal for another kind
     */
    private static function otherKindIs(mixed $whenOtherKind, callable $op): mixed
    {
        try {
            return $op();
        } catch (\Exception $e) {
            if (!self::isOtherKind($e)) {
                throw $e;
            }

            return $whenOtherKind;
        }
    }
}
