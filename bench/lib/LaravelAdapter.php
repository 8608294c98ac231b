<?php
declare(strict_types=1);

namespace Bench;

require_once 'Illuminate/Cache/autoload.php';
require_once 'Illuminate/Redis/autoload.php';

use Illuminate\Cache\PhpRedisLock;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Redis\Connections\PhpRedisConnection;

/**
 * Laravel 8 (php-illuminate-cache): Illuminate\Cache\PhpRedisLock over an
 * Illuminate\Redis\Connections\PhpRedisConnection wrapping a \Redis, the
 * objects Cache::lock() builds. One PhpRedisLock per acquisition (as
 * Cache::lock() does). Waiting: Lock::block($seconds), which retries every
 * 250 ms; ttl and wait are whole seconds in Laravel (rounded up here).
 */
final class LaravelAdapter implements Adapter
{
    private PhpRedisConnection $conn;

    public function __construct(string $host, int $port)
    {
        $this->conn = new PhpRedisConnection(redis_connect($host, $port), null, []);
    }

    public function id(): string { return 'laravel'; }

    public function waits(): string { return 'PhpRedisLock::block($seconds): retry every 250 ms'; }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void { $this->run('bench:warm:laravel', 5.0, 1.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $lock = new PhpRedisLock($this->conn, $name, (int) ceil($ttl));
        try {
            $lock->block((int) ceil($wait));
        } catch (LockTimeoutException) {
            return false;
        }
        return hold_and_release($body, fn () => $lock->release());
    }
}
