<?php
declare(strict_types=1);

namespace Bench;

require_once 'Malkusch/Lock/autoload.php';

use malkusch\lock\exception\TimeoutException;
use malkusch\lock\mutex\PHPRedisMutex;

/**
 * php-lock 2.2 (php-malkusch-lock): malkusch\lock\mutex\PHPRedisMutex on a
 * \Redis, one mutex per acquisition, Mutex::synchronized(). Its $timeout
 * (whole seconds) is both the wait limit and, plus one second, the lease: the
 * ttl argument cannot be passed. Waiting: randomized exponential backoff from
 * 10 ms up to 500 ms.
 */
final class MalkuschAdapter implements Adapter
{
    private \Redis $r;

    public function __construct(string $host, int $port)
    {
        $this->r = redis_connect($host, $port);
    }

    public function id(): string { return 'malkusch'; }

    public function waits(): string { return 'synchronized(): backoff 10 ms x1.25^n up to 500 ms'; }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void { $this->run('bench:warm:malkusch', 5.0, 1.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $mutex = new PHPRedisMutex([$this->r], $name, max(1, (int) ceil($wait)));
        try {
            $mutex->synchronized($body ?? static function (): void {});
        } catch (TimeoutException) {
            return false;
        }
        return true;
    }
}
