<?php
declare(strict_types=1);

namespace Bench;

require_once 'Symfony/Component/Lock/autoload.php';

use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore;

/**
 * symfony/lock 5.4 (php-symfony-lock): LockFactory over Store\RedisStore on a
 * \Redis; one Lock per acquisition (createLock). Waiting: Lock::acquire(true),
 * which retries every 100 ± 10 ms and has no wait limit (the harness stops
 * such a waiter from outside where a limit matters).
 */
final class SymfonyAdapter implements Adapter
{
    private LockFactory $factory;

    public function __construct(string $host, int $port)
    {
        $this->factory = new LockFactory(new RedisStore(redis_connect($host, $port)));
    }

    public function id(): string { return 'symfony'; }

    public function waits(): string { return 'Lock::acquire(true): retry every 100±10 ms, no wait limit'; }

    public function hasWaitLimit(): bool { return false; }

    public function warm(): void { $this->run('bench:warm:symfony', 5.0, 1.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $lock = $this->factory->createLock($name, $ttl, false);
        if (!$lock->acquire(true)) {
            return false;
        }
        return hold_and_release($body, fn () => $lock->release());
    }
}
