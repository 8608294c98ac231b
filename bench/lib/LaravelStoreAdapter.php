<?php
declare(strict_types=1);

namespace Bench;

require_once 'Illuminate/Cache/autoload.php';
require_once 'Illuminate/Redis/autoload.php';
require_once 'Illuminate/Container/autoload.php';

use DistLock\Laravel\DistLockStore;
use Illuminate\Cache\RedisStore;
use Illuminate\Container\Container;
use Illuminate\Contracts\Cache\LockProvider;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Redis\RedisManager;

spl_autoload_register(function (string $class): void {
    if (str_starts_with($class, 'DistLock\\Laravel\\')) {
        $f = dirname(__DIR__, 2) . '/integrations/laravel/src/' . str_replace('\\', '/', substr($class, 17)) . '.php';
        if (is_file($f)) {
            require $f;
        }
    }
});

/**
 * Cache::lock($name, $ttl)->block($wait) on one of two Laravel stores (Laravel 8,
 * Debian's php-illuminate-cache):
 *  - "laravel-redis": Laravel's own RedisStore (PhpRedisLock; block() retries
 *    every 250 ms; ttl and wait are whole seconds, rounded up here);
 *  - "laravel-distlock": the distlock store of integrations/laravel (CacheLock;
 *    block() waits with distlock's blocking wait; float seconds).
 * Both use the same keys (empty prefixes). One lock object per acquisition.
 */
final class LaravelStoreAdapter implements Adapter
{
    private LockProvider $store;

    public function __construct(private string $kind, string $host, int $port)
    {
        $redis = new RedisManager(new Container(), 'phpredis', ['default' => ['host' => $host, 'port' => $port, 'database' => 0, 'read_timeout' => 60]]);
        $values = new RedisStore($redis, '', 'default');
        $this->store = $kind === 'laravel-distlock'
            ? new DistLockStore($values, new \DistLock("redis://$host:$port", ['prefix' => '', 'timeout' => 60.0]), 86400.0)
            : $values;
    }

    public function id(): string { return $this->kind; }

    public function waits(): string
    {
        return $this->kind === 'laravel-distlock' ? 'CacheLock::block(): distlock BLPOP wait, woken by the release' : 'Lock::block(): retry every 250 ms';
    }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void { $this->run('bench:warm:' . $this->kind, 5.0, 1.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $distlock = $this->kind === 'laravel-distlock';
        $lock = $this->store->lock($name, $distlock ? $ttl : (int) ceil($ttl));
        try {
            $lock->block($distlock ? $wait : (int) ceil($wait));
        } catch (LockTimeoutException) {
            return false;
        }
        return hold_and_release($body, fn () => $lock->release());
    }
}
