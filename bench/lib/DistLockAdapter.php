<?php
declare(strict_types=1);

namespace Bench;

/**
 * distlock, by mode:
 *   'lock'    DistLock::lock() (waits with the extension's own policy), Lock::release()
 *   'try'     DistLock::tryLock() (one attempt, no waiting), Lock::release()
 *   'scoped'  DistLock::tryLock(), released by the Lock's destruction (deferred reply)
 *   'sync'    DistLock::synchronized() around the body (deferred release at its end)
 * Options such as ['fair' => true] are passed through; a build that does
 * not know them refuses them with a ValueError "unknown option", reported
 * as NotSupported.
 */
final class DistLockAdapter implements Adapter
{
    private \DistLock $dl;

    public function __construct(private string $uri, private array $options = [], private string $id = 'distlock',
                                private string $mode = 'lock')
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
        return match ($this->mode) {
            'try', 'scoped' => 'no wait (one attempt)',
            default => 'DistLock::lock($name, $ttl, $wait), default retry policy',
        };
    }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void
    {
        $this->run('bench:warm:' . $this->id, 5.0, 1.0, null);
    }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        if ($this->mode === 'sync') {
            try {
                $this->dl->synchronized($name, $body ?? static fn () => null, $ttl, $wait);
                return true;
            } catch (\DistLock\LockTimeoutException) {
                return false;
            }
        }
        if ($this->mode === 'scoped') {
            $lock = $this->dl->tryLock($name, $ttl);
            if ($lock === null) {
                return false;
            }
            if ($body !== null) {
                $body();
            }
            return true;   // $lock goes out of scope here: the scoped release
        }
        if ($this->mode === 'try') {
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
