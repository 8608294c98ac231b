<?php
declare(strict_types=1);

namespace Bench;

/**
 * distlock: DistLock::lock() (waits with the extension's own policy) or
 * DistLock::tryLock() (one attempt, no waiting); Lock::release().
 * Options such as ['fair' => true] are passed through; a build that does
 * not know them refuses them with a ValueError "unknown option", reported
 * as NotSupported.
 */
final class DistLockAdapter implements Adapter
{
    private \DistLock $dl;

    public function __construct(private string $uri, private array $options = [], private string $id = 'distlock',
                                private bool $try = false)
    {
        $this->dl = self::make($uri, $options);
    }

    /** new DistLock(), mapping "unknown option" to NotSupported. */
    public static function make(string $uri, array $options): \DistLock
    {
        try {
            return new \DistLock($uri, $options);
        } catch (\ValueError $e) {
            if (str_contains($e->getMessage(), 'unknown option')) {
                throw new NotSupported($e->getMessage(), 0, $e);
            }
            throw $e;
        }
    }

    public function id(): string { return $this->id; }

    public function waits(): string
    {
        return $this->try ? 'no wait (one attempt)' : 'DistLock::lock($name, $ttl, $wait), default retry policy';
    }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void
    {
        $this->run('bench:warm:' . $this->id, 5.0, 1.0, null);
    }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        if ($this->try) {
            $lock = $this->dl->tryLock($name, $ttl);
            if ($lock === null) {
                return false;
            }
        } else {
            try {
                $lock = $this->dl->lock($name, $ttl, $wait);
            } catch (\DistLock\LockTimeoutException) {
                return false;
            }
        }
        return hold_and_release($body, fn () => $lock->release());
    }
}
