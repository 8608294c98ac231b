<?php
declare(strict_types=1);

namespace Bench;

require_once 'Symfony/Component/Lock/autoload.php';
require_once __DIR__ . '/../../integrations/symfony/src/DistLockStore.php';

use DistLock\Symfony\DistLockStore;
use Symfony\Component\Lock\LockFactory;

/**
 * symfony/lock's LockFactory over distlock's DistLockStore (integrations/symfony),
 * on a DistLock client of its own; one Lock per acquisition (createLock, no
 * autoRelease). run(): Lock::acquire(true), which calls the store's
 * waitAndSave(): a waiter blocks on Redis and is woken by the release. Like
 * every symfony/lock Lock it has no wait limit. cycle(): the non-blocking
 * acquire() + release() of the uncontended section.
 */
final class SymfonyDistLockAdapter implements Adapter
{
    private LockFactory $factory;

    public function __construct(string $uri, array $options = [])
    {
        // FIFO hand-over (fair) is the mutex's: a fair client's store does without shared locks.
        $this->factory = new LockFactory(new DistLockStore(new \DistLock($uri, $options), 300.0, !($options['fair'] ?? false)));
    }

    public function id(): string { return 'symfony-distlock'; }

    public function waits(): string { return 'Lock::acquire(true) -> DistLockStore::waitAndSave(): blocks on Redis, woken by the release'; }

    public function hasWaitLimit(): bool { return false; }

    public function warm(): void { $this->run('bench:warm:symfony-distlock', 5.0, 1.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $lock = $this->factory->createLock($name, $ttl, false);
        if (!$lock->acquire(true)) {
            return false;
        }
        return hold_and_release($body, fn () => $lock->release());
    }

    /** acquire() (one attempt) + release(); false when the lock was held. */
    public function cycle(string $name, float $ttl): bool
    {
        $lock = $this->factory->createLock($name, $ttl, false);
        if (!$lock->acquire()) {
            return false;
        }
        $lock->release();
        return true;
    }

    /** One uncontended acquireRead() + release(). */
    public function cycleRead(string $name, float $ttl): bool
    {
        $lock = $this->factory->createLock($name, $ttl, false);
        if (!$lock->acquireRead()) {
            return false;
        }
        $lock->release();
        return true;
    }

    public function factory(): LockFactory { return $this->factory; }
}
